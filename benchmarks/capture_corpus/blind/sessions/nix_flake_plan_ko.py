# ruff: noqa: E501  (verbatim command output and file contents)
"""Nix flake dev shell planned in plan mode, approved with ExitPlanMode, then edited (Korean)."""

from make_sessions import Call, Session

SHELL_NIX = '''{ pkgs ? import <nixpkgs> {} }:
pkgs.mkShell {
  buildInputs = [ pkgs.rustc pkgs.cargo pkgs.postgresql pkgs.openssl pkgs.pkg-config ];
}
'''

PLAN = """## flake.nix 로 개발 환경 전환

1. `shell.nix` 대신 `flake.nix` 추가 — `nixpkgs`는 `nixos-24.05`로 고정, `flake-utils.lib.eachDefaultSystem`으로 x86_64-linux와 aarch64-darwin(팀 맥북) 둘 다 지원
2. Rust 툴체인은 `rust-overlay`로 `rust-toolchain.toml`(1.79)을 그대로 읽음
3. devShell에 postgresql_16, openssl, pkg-config, sqlx-cli
4. `.envrc`에 `use flake` (direnv)
5. `shell.nix`는 삭제하지 않고 `flake-compat`으로 위임 (아직 nix-shell 쓰는 사람용)
6. 검증: `nix flake check`, `nix develop -c cargo test`"""

PLAN_PATH = "/home/jiwoo/.claude/plans/steady-pinning-otter.md"


def build() -> Session:
    s = Session("nix-flake-plan-ko", cwd="/home/jiwoo/src/ledgerd", branch="nix-flake",
                start="2026-05-06T01:20:17.902Z", version="2.1.70", slug="steady-pinning-otter",
                permission_mode="plan")
    s.user(
        "shell.nix를 flake로 바꾸고 싶어요. 맥북 쓰는 팀원도 있어서 aarch64-darwin도 돼야 하고요. "
        "참고로 unstable 채널은 쓰지 마세요, 작년에 unstable 따라가다가 openssl 깨져서 하루 날렸어요. "
        "nixos-24.05로 고정해 주세요. 먼저 계획부터 보여 주세요.",
        wait=7,
    )
    s.call(s.read_call("shell.nix", SHELL_NIX),
           s.read_call("rust-toolchain.toml", '[toolchain]\nchannel = "1.79"\ncomponents = ["rustfmt", "clippy"]\n'))
    s.bash("ls -a && git log --oneline -3", """\
.  ..  .git  .gitignore  Cargo.lock  Cargo.toml  migrations  rust-toolchain.toml  shell.nix  src
8c2f1e9 sqlx: offline mode for CI
4b7a0d2 ledger: idempotent transfers
e91d3c4 shell.nix: add pkg-config""", desc="프로젝트 구조")
    s.call(Call("ExitPlanMode", {"plan": PLAN},
                "User has approved your plan. You can now start coding. Start with updating your todo list if applicable\n\n"
                f"Your plan has been saved to: {PLAN_PATH}\nYou can refer back to it if needed during implementation.\n\n## Approved Plan:\n{PLAN}",
                {"plan": PLAN, "isAgent": False, "filePath": PLAN_PATH}, secs=95))
    s.permission_mode = "acceptEdits"
    s.write("flake.nix", '''{
  description = "ledgerd dev environment";

  inputs = {
    # 24.05 고정: unstable에서 openssl이 깨진 적이 있음
    nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.05";
    flake-utils.url = "github:numtide/flake-utils";
    rust-overlay.url = "github:oxalica/rust-overlay";
    rust-overlay.inputs.nixpkgs.follows = "nixpkgs";
    flake-compat.url = "github:edolstra/flake-compat";
  };

  outputs = { self, nixpkgs, flake-utils, rust-overlay, ... }:
    flake-utils.lib.eachDefaultSystem (system:
      let
        pkgs = import nixpkgs { inherit system; overlays = [ rust-overlay.overlays.default ]; };
        rust = pkgs.rust-bin.fromRustupToolchainFile ./rust-toolchain.toml;
      in {
        devShells.default = pkgs.mkShell {
          packages = [ rust pkgs.postgresql_16 pkgs.openssl pkgs.pkg-config pkgs.sqlx-cli ];
        };
      });
}
''')
    s.write(".envrc", "use flake\n")
    s.write("shell.nix", '''(import (let lock = builtins.fromJSON (builtins.readFile ./flake.lock); in fetchTarball {
  url = "https://github.com/edolstra/flake-compat/archive/${lock.nodes.flake-compat.locked.rev}.tar.gz";
  sha256 = lock.nodes.flake-compat.locked.narHash; }) { src = ./.; }).shellNix
''')
    s.bash("nix flake check 2>&1 | tail -4", """\
error: path '/nix/store/q8x0bz9y1m2k4v7c3n5r6s8t0w2y4a6c-source/flake.nix' does not exist
       (use '--show-trace' to show detailed location information)
warning: Git tree '/home/jiwoo/src/ledgerd' is dirty""", desc="flake 검사", secs=8)
    s.say("flake는 git에 추가된 파일만 봅니다. `flake.nix`가 아직 untracked라서 그렇습니다. `git add` 후 다시:")
    s.bash("git add flake.nix .envrc shell.nix && nix flake check 2>&1 | tail -4", """\
warning: creating lock file '/home/jiwoo/src/ledgerd/flake.lock'
checking flake output 'devShells'...
checking derivation devShells.x86_64-linux.default...
warning: The check omitted these incompatible systems: aarch64-darwin, aarch64-linux, x86_64-darwin""", desc="flake 검사", secs=95)
    s.bash("nix develop -c cargo test 2>&1 | tail -3", """\
test result: ok. 48 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 2.31s
   Doc-tests ledgerd
test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.88s""", desc="devShell에서 테스트", secs=240)
    s.say(
        "완료했습니다.\n- `flake.nix` (nixos-24.05 고정, eachDefaultSystem, rust-overlay로 "
        "`rust-toolchain.toml` 사용), `flake.lock` 생성\n- `.envrc`: `use flake`\n- `shell.nix`는 "
        "flake-compat 위임\n- `nix flake check`, `nix develop -c cargo test` 통과 (51개)\n\n"
        "`nix flake check`는 x86_64-linux만 실제로 평가했습니다. aarch64-darwin은 이 머신에서 "
        "확인할 수 없어서 맥북에서 한 번 `nix develop` 해 봐야 합니다."
    )
    s.turn_end()
    s.user("고마워요. CI에는 아직 cachix 안 붙였는데 그건 다음에 할게요.", wait=60)
    s.say("네, 지금은 CI가 매번 툴체인을 새로 받으니 cachix 붙이면 꽤 빨라질 겁니다.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Nix flake (flake-utils, rust-overlay, flake-compat) for a Rust + Postgres service, Korean",
        "plan mode from the first prompt (permissionMode plan), ExitPlanMode approved with the plan text, then edits in acceptEdits",
        "a rule with its reason in the first prompt (never unstable; pin nixos-24.05)",
        "flake check failing because flake.nix was untracked (git add), then passing with an 'omitted incompatible systems' warning",
        "an unverified platform left open, and a todo stated in passing by the user (cachix in CI)",
    ],
    "language": "ko",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference", "decision"],
         "match": [["unstable"], ["24.05"], ["openssl"]],
         "note": "unstable 채널은 쓰지 않는다: nixpkgs는 nixos-24.05로 고정 (unstable에서 openssl이 깨져 하루를 날린 적이 있음)."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["aarch64-darwin"], ["맥북", "eachDefaultSystem"]],
         "note": "맥북 쓰는 팀원이 있어서 aarch64-darwin도 지원해야 한다 (flake-utils eachDefaultSystem)."},
        {"id": "d1", "type": "decision",
         "match": [["shell.nix"], ["flake-compat"], ["nix-shell"]],
         "note": "shell.nix는 지우지 않고 flake-compat으로 flake에 위임한다 (아직 nix-shell 쓰는 사람용)."},
        {"id": "d2", "type": "decision", "required": False,
         "match": [["rust-overlay"], ["rust-toolchain.toml"]],
         "note": "Rust 툴체인은 rust-overlay가 rust-toolchain.toml(1.79)을 그대로 읽는다."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "project_fact"],
         "match": [["git add", "untracked"], ["flake"]],
         "note": "flake는 git에 추가된 파일만 본다: untracked flake.nix로는 'does not exist' 에러, git add 후 통과."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["aarch64-darwin"], ["맥북에서", "확인할 수 없"]],
         "note": "nix flake check는 x86_64-linux만 평가했다; aarch64-darwin은 맥북에서 nix develop으로 확인해야 한다."},
        {"id": "t1", "type": "todo",
         "match": [["cachix"], ["CI"]],
         "note": "CI에 아직 cachix를 붙이지 않았다 (다음에)."},
        {"id": "v1", "type": "verified_command", "command": "nix develop -c cargo test"},
        {"id": "v2", "type": "verified_command", "required": False,
         "command": "git add flake.nix .envrc shell.nix && nix flake check"},
    ],
    "secrets": [],
    "forbidden": [["User has approved your plan"], ["Approved Plan"], ["You can refer back to it"]],
}
