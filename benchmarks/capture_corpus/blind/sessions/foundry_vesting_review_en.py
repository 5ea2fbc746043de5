# ruff: noqa: E501  (verbatim command output and file contents)
"""Review of a Solidity/Foundry PR (token vesting); the findings are the knowledge; posting the review rejected (English)."""

from make_sessions import Session

VESTING = '''// SPDX-License-Identifier: MIT
pragma solidity 0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice Linear vesting with a cliff for advisor allocations.
contract AdvisorVesting is Ownable {
    IERC20 public immutable token;
    uint64 public immutable start;
    uint64 public immutable cliff;
    uint64 public immutable duration;

    mapping(address => uint256) public allocation;
    mapping(address => uint256) public released;
    mapping(address => bool) public revoked;

    event Released(address indexed beneficiary, uint256 amount);

    constructor(IERC20 token_, uint64 start_, uint64 cliff_, uint64 duration_) Ownable(msg.sender) {
        token = token_;
        start = start_;
        cliff = cliff_;
        duration = duration_;
    }

    function vestedAmount(address who, uint64 at) public view returns (uint256) {
        if (at < start + cliff) return 0;
        if (at >= start + duration) return allocation[who];
        return allocation[who] * (at - start) / duration;
    }

    function release() external {
        uint256 amount = vestedAmount(msg.sender, uint64(block.timestamp)) - released[msg.sender];
        require(amount > 0, "nothing to release");
        token.transfer(msg.sender, amount);
        released[msg.sender] += amount;
        emit Released(msg.sender, amount);
    }

    function revoke(address who) external onlyOwner {
        uint256 unvested = allocation[who] - vestedAmount(who, uint64(block.timestamp));
        revoked[who] = true;
        allocation[who] -= unvested;
        token.transfer(owner(), unvested);
    }
}
'''

CONTRIB = '''# Contributing

- Solidity 0.8.24, Foundry. `forge fmt` before pushing.
- Checks-effects-interactions, always. No external call before the state it depends on is written.
- Every state-changing function emits an event (the indexer depends on it).
- Tests: unit tests in test/, fuzz tests named `testFuzz_*`.
'''

POC = '''// SPDX-License-Identifier: MIT
pragma solidity 0.8.24;

import {Test} from "forge-std/Test.sol";
import {AdvisorVesting} from "../src/AdvisorVesting.sol";
import {MockERC20} from "./mocks/MockERC20.sol";

contract VestingReviewTest is Test {
    function testFuzz_vestedAmountNeverReverts(uint64 duration, uint64 at) public {
        MockERC20 t = new MockERC20();
        AdvisorVesting v = new AdvisorVesting(t, 1_700_000_000, 0, duration);
        v.vestedAmount(address(this), at);
    }
}
'''

REVIEW = '''## Review of #88 (AdvisorVesting)

**Blocking**
1. `release()` calls `token.transfer` before `released[msg.sender] += amount`. That breaks checks-effects-interactions (CONTRIBUTING): a token with transfer hooks can re-enter `release()` and be paid twice. Update `released` first, then transfer; use `SafeERC20.safeTransfer` while you're there (the return value of `transfer` is ignored today).
2. `start + duration` is computed in uint64: a large `duration` overflows and `vestedAmount` (so every `release()`) reverts with panic 0x11. PoC fuzz test below. Do the math in uint256 and require `duration > 0` and `cliff <= duration`.

**Should fix**
3. `revoke()` changes state without an event; the indexer won't see revocations. Add `Revoked(who, unvested)`.
4. `revoke()` can be called twice; the second call subtracts again from an already-reduced allocation.

PoC:
```solidity
function testFuzz_vestedAmountNeverReverts(uint64 duration, uint64 at) public { … }
```
'''


def build() -> Session:
    s = Session("foundry-vesting-review-en", cwd="/home/sven/work/meridian-contracts", branch="main",
                start="2026-03-05T13:10:44.208Z", version="2.1.56", slug="vesting-review-heron", stop_reasons=True)
    s.user(
        "can you review #88 (advisor vesting, from Jonas). read CONTRIBUTING first, we're strict about the CEI thing and events. "
        "just findings, don't push anything to his branch",
        wait=6,
    )
    s.bash("gh pr view 88 --json title,headRefName,additions,deletions,files --jq '.title, .headRefName, (.files[].path)'", '''Add AdvisorVesting (linear, cliff, revocable)
jonas/advisor-vesting
src/AdvisorVesting.sol
test/AdvisorVesting.t.sol
script/DeployVesting.s.sol''', desc="PR metadata")
    s.bash("gh pr checkout 88", '''From github.com:meridian-labs/meridian-contracts
 * [new branch]      jonas/advisor-vesting -> jonas/advisor-vesting
Switched to branch 'jonas/advisor-vesting' ''', desc="Check out the PR")
    s.call(s.read_call("CONTRIBUTING.md", CONTRIB), s.read_call("src/AdvisorVesting.sol", VESTING))
    s.bash("forge build", '''[⠊] Compiling...
[⠒] Compiling 31 files with Solc 0.8.24
[⠢] Solc 0.8.24 finished in 2.41s
Compiler run successful!''', desc="Build", secs=9)
    s.bash("forge test", '''Ran 6 tests for test/AdvisorVesting.t.sol:AdvisorVestingTest
[PASS] test_cliffReleasesNothing() (gas: 48211)
[PASS] test_fullyVestedAfterDuration() (gas: 71033)
[PASS] test_halfwayReleasesHalf() (gas: 70912)
[PASS] test_onlyOwnerRevokes() (gas: 14220)
[PASS] test_revokeReturnsUnvested() (gas: 83316)
[PASS] test_releaseTwiceSecondReverts() (gas: 76450)
Suite result: ok. 6 passed; 0 failed; 0 skipped; finished in 3.02ms (4.11ms CPU time)

Ran 1 test suite in 141.77ms (3.02ms CPU time): 6 tests passed, 0 failed, 0 skipped (6 total tests)''', desc="Jonas's tests", secs=12)
    s.say(
        "His tests pass, but they only cover the happy paths. Reading the contract against "
        "CONTRIBUTING:\n\n"
        "- `release()` does `token.transfer(...)` and only *then* `released[msg.sender] += amount`. "
        "That's exactly the order CONTRIBUTING forbids; with a token that calls back on transfer "
        "(ERC777-style hooks) the beneficiary can re-enter and get paid twice.\n"
        "- `revoke()` writes state and emits nothing.\n"
        "- The constructor takes any `duration`, including 0, and `vestedAmount` divides by it.\n\n"
        "The last one I want to prove rather than claim, so a quick fuzz test:"
    )
    s.write("test/VestingReview.t.sol", POC)
    s.bash("forge test --match-contract VestingReviewTest 2>&1 | tail -8", '''Ran 1 test for test/VestingReview.t.sol:VestingReviewTest
[FAIL: panic: arithmetic underflow or overflow (0x11); counterexample: calldata=0x5c3f… args=[18446744073709551615, 1700000000]] testFuzz_vestedAmountNeverReverts(uint64,uint64) (runs: 3, μ: 412733, ~: 412733)
Suite result: FAILED. 0 passed; 1 failed; 0 skipped; finished in 9.87ms (8.95ms CPU time)

Failing tests:
Encountered 1 failing test in test/VestingReview.t.sol:VestingReviewTest
[FAIL: panic: arithmetic underflow or overflow (0x11); counterexample: calldata=0x5c3f… args=[18446744073709551615, 1700000000]] testFuzz_vestedAmountNeverReverts(uint64,uint64) (runs: 3, μ: 412733, ~: 412733)''', desc="Fuzz vestedAmount", secs=10)
    s.say(
        "Confirmed, though not the way I expected: `duration = 0` alone never divides (the "
        "`at >= start + duration` branch returns first). The fuzzer found something else: "
        "`start + duration` is computed in `uint64`, so a huge `duration` overflows and "
        "`vestedAmount` reverts with panic 0x11 — and with it every `release()`. A contract that can "
        "be deployed in a state where nobody can ever claim is worth blocking on: the fix is doing "
        "the time math in `uint256` and requiring `0 < duration` and `cliff <= duration` in the "
        "constructor."
    )
    s.say("Also a second look at `revoke()`: nothing prevents calling it twice.")
    s.write("test/VestingReview.t.sol", POC.replace('''        v.vestedAmount(address(this), at);
    }''', '''        v.vestedAmount(address(this), at);
    }

    function test_revokeTwice() public {
        MockERC20 t = new MockERC20();
        AdvisorVesting v = new AdvisorVesting(t, uint64(block.timestamp), 30 days, 365 days);
        t.mint(address(v), 1000e18);
        v.setAllocation(address(0xA11CE), 1000e18);
        skip(100 days);
        v.revoke(address(0xA11CE));
        v.revoke(address(0xA11CE));
        assertEq(v.allocation(address(0xA11CE)), v.vestedAmount(address(0xA11CE), uint64(block.timestamp)));
    }'''))
    s.bash("forge test --match-test test_revokeTwice 2>&1 | tail -4", '''Error (9582): Member "setAllocation" not found or not visible after argument-dependent lookup in contract AdvisorVesting.
  --> test/VestingReview.t.sol:20:9:
   |
20 |         v.setAllocation(address(0xA11CE), 1000e18);''', desc="Revoke twice", secs=8)
    s.say(
        "Right, there's no setter in the contract at all — allocations are never written, so on "
        "mainnet every `allocation[who]` is 0. Checking how his tests set them:"
    )
    s.bash("grep -n 'allocation' test/AdvisorVesting.t.sol script/DeployVesting.s.sol", '''test/AdvisorVesting.t.sol:22:        stdstore.target(address(vesting)).sig("allocation(address)").with_key(alice).checked_write(1000e18);
script/DeployVesting.s.sol:18:        // TODO allocations are set in a follow-up PR''', desc="How allocations get set")
    s.say(
        "His tests write the mapping with `stdstore`, and the deploy script says allocations come in "
        "a follow-up PR. So the missing setter is known; I'll mention it as a question, not a finding. "
        "The double revoke can't be shown with a real call path yet, I'll keep it as a reading note."
    )
    s.user(
        "don't leave the PoC file on his branch pls, it goes into the review text. and yeah double revoke as a note is fine",
        wait=40,
    )
    s.bash("rm test/VestingReview.t.sol && git status --short", "", desc="Remove the PoC")
    s.bash("forge fmt --check", "", desc="Format check")
    s.write("/tmp/review-88.md", REVIEW)
    s.say("Review text is in `/tmp/review-88.md`. Posting it as *request changes* because of the CEI one:")
    s.bash_rejected("gh pr review 88 --request-changes --body-file /tmp/review-88.md", desc="Post the review",
                    reason="no, don't post, I'll post it myself. Jonas is new and I want to reword it a bit. request changes is right though")
    s.say(
        "OK, not posted. Summary of what's in `/tmp/review-88.md`:\n\n"
        "**Blocking**\n"
        "1. CEI violation in `release()` — transfer before `released` is updated; re-entrancy with "
        "hook tokens. Fix: effects first, then `SafeERC20.safeTransfer` (the bool return of "
        "`transfer` is ignored today, so a token returning `false` would silently count as paid).\n"
        "2. `start + duration` overflows in `uint64` → panic 0x11 in `vestedAmount`, so nobody can "
        "release; fuzz PoC included as text. Math in `uint256`, require `duration > 0 && cliff <= duration`.\n\n"
        "**Should fix**\n"
        "3. `revoke()` emits no event (CONTRIBUTING: every state change emits one; the indexer needs it).\n"
        "4. `revoke()` twice reduces the allocation twice (reading note, no PoC: there's no setter yet).\n\n"
        "**Question for Jonas**: allocations are only written via `stdstore` in tests; the setter "
        "comes in a follow-up PR per the deploy script.\n\n"
        "Not done: I didn't run slither (not installed here) and didn't look at "
        "`script/DeployVesting.s.sol` beyond that TODO. I'm back on your branch state: PoC file removed, "
        "`forge fmt --check` clean."
    )
    s.turn_end()
    s.user(
        "thx, good catches. one thing I'm not sure about: do we even want to support fee-on-transfer tokens here? "
        "if yes then released += amount is wrong anyway. leave it open, I'll bring it up friday. "
        "and slither in CI is overdue, I'll ask Lena after the audit",
        wait=160,
    )
    s.say("Makes sense — I've left both out of the review text.")
    s.bash("git checkout main", "Switched to branch 'main'\nYour branch is up to date with 'origin/main'.", desc="Back to main")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Solidity 0.8.24 / Foundry PR review (forge build/test/fmt, fuzz PoC), English",
        "team rules read from CONTRIBUTING and repeated by the user (CEI, events on every state change)",
        "the assistant's review findings are the knowledge: CEI re-entrancy, uint64 overflow of start + duration (fuzz counterexample, not the division by zero the assistant expected), revoke without event, double revoke",
        "a PoC test failing on purpose (not a verified command), a compile error on a missing setter explained by the deploy script",
        "posting the review rejected with the user's reason; the decision (request changes) confirmed in the same rejection",
        "what was NOT done listed in the wrap-up (slither, deploy script); open question and todo said in the user's last message",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["checks-effects-interactions", "CEI"], ["external call", "transfer", "state"]],
         "note": "Checks-effects-interactions always: no external call before the state it depends on is written (CONTRIBUTING)."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["event"], ["indexer", "state-changing", "state change"]],
         "note": "Every state-changing function emits an event, the indexer depends on it."},
        {"id": "b1", "type": "bug_note",
         "match": [["release()"], ["re-enter", "re-entrancy", "reentrancy"], ["released"]],
         "note": "PR #88: release() transfers before updating released[] — re-entrancy with hook tokens; effects first, then safeTransfer."},
        {"id": "b2", "type": "bug_note",
         "match": [["start + duration"], ["0x11", "overflow"]],
         "note": "PR #88: start + duration is computed in uint64 and overflows for a large duration (panic 0x11), so release() always reverts; found by a fuzz test."},
        {"id": "b3", "type": "bug_note",
         "match": [["revoke"], ["event", "twice"]],
         "note": "PR #88: revoke() emits no event and can be called twice, reducing the allocation again."},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["PoC"], ["branch", "review text"]],
         "note": "PoC tests for a review don't go onto the author's branch; they go into the review text."},
        {"id": "p2", "type": "preference", "types": ["preference", "constraint", "decision"],
         "match": [["post"], ["reword", "myself", "Jonas is new"]],
         "note": "Sven posts the review himself (Jonas is new, he rewords it); the agent only writes /tmp/review-88.md."},
        {"id": "d1", "type": "decision", "required": False,
         "match": [["request changes", "request-changes"], ["CEI"]],
         "note": "PR #88 gets 'request changes' rather than approve-with-comments, because of the CEI violation."},
        {"id": "q1", "type": "open_question",
         "match": [["fee-on-transfer"], ["friday", "released"]],
         "note": "Do we support fee-on-transfer tokens at all? If yes, released += amount is wrong; Sven brings it up on Friday."},
        {"id": "t1", "type": "todo",
         "match": [["slither"], ["Lena", "CI"]],
         "note": "Slither in CI is overdue; Sven asks Lena after the audit."},
        {"id": "v1", "type": "verified_command", "command": "forge build"},
        {"id": "v2", "type": "verified_command", "command": "forge test"},
        {"id": "v3", "type": "verified_command", "command": "forge fmt --check", "required": False},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"]],
}
