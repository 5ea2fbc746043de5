"""Cheap decisions a hook makes before touching the store (stdlib only, no engram imports).

Most hook calls need nothing from memory: "ok", `ls`, `cat`, a Read. Deciding that here
keeps those calls at bare interpreter cost; only what survives triage reaches the worker
or opens the store.
"""

from __future__ import annotations

import functools
import re

TYPE_CHECKING = False  # not `from typing import …`: typing costs ms on every hook call
if TYPE_CHECKING:
    from typing import Any

# Words of prompts that carry no topic: acknowledgements and continuations ("ok",
# "yes please", "go ahead", "thanks!"). A prompt made only of these has nothing to recall.
_TRIVIAL_WORDS = frozenset("""
ok okay k kk yes y yeah yep yup no n nope sure thanks thank you thx ty cool nice great good
perfect continue go on ahead proceed next done lgtm sgtm agreed right correct exactly fine do
it please carry keep going again retry try sounds looks makes sense got understood wait stop
hmm hm ack approved ship merci danke да ок спасибо продолжай
""".split())  # noqa: SIM905 - a word list reads better as prose
MIN_PROMPT_CHARS = 8


def is_trivial_prompt(prompt: Any) -> bool:
    """True for prompts with nothing to recall against ("ok", "continue", "yes please")."""
    if not isinstance(prompt, str):
        return True
    text = " ".join(re.sub(r"[^\w\s/]", " ", prompt.lower()).split())
    if len(text) < MIN_PROMPT_CHARS:
        return True
    words = text.split()
    return len(words) <= 5 and all(w in _TRIVIAL_WORDS for w in words)


# --- Bash commands -----------------------------------------------------------------------

# Tools whose success is worth remembering: building, testing, linting, type-checking,
# formatting checks, running the project. Matched on the first word(s) of each segment.
_VERIFIABLE = [
    r"(python\d*(\.\d+)?\s+-m\s+)?(pytest|unittest|tox|nox|mypy|pyright|ruff|black|isort|flake8|pylint|coverage|build|pip\s+install\s+-e)\b",
    r"(uv|poetry|pdm|hatch|pipenv|rye)\s+(run|build|sync|install)\b",
    r"(npm|pnpm|yarn|bun)\s+(test|t|run|build|ci|install|i|exec|lint|typecheck|start|dev)\b",
    r"(pnpm|yarn|bun|bunx)\s+(dlx\s+)?(vitest|jest|tsc|eslint|prettier|playwright|biome|mocha|"
    r"turbo|nx|vite|next|astro|svelte-check|vue-tsc)\b",
    r"npx\s+\S+",
    r"(node|tsx|ts-node)\s+\S+",
    r"deno\s+(run|test|task|lint|fmt|check|bench|compile)\b",
    r"(tsc|eslint|prettier|jest|vitest|mocha|playwright|biome|webpack|vite)\b",
    r"cargo\s+(build|test|check|clippy|fmt|run|bench|nextest|llvm-cov|tarpaulin|deny|audit)\b",
    r"go\s+(build|test|vet|run|generate|mod\s+tidy)\b",
    r"(golangci-lint|staticcheck|gofmt)\b",
    r"(make|gmake|cmake|ninja|bazel|bazelisk|buck2?|just|task|meson)\b",
    r"(mvn|mvnw|\./mvnw|gradle|gradlew|\./gradlew|sbt|lein)\b",
    r"(dotnet)\s+(build|test|run|format)\b",
    r"(bundle\s+exec\s+)?(rspec|rake|rubocop|rails\s+test)\b",
    r"(mix)\s+(test|compile|format|credo|dialyzer|ecto\.(migrate|rollback|setup)|deps\.get|"
    r"deps\.audit|sobelow|quality|check)\b",
    r"(terraform|tofu)\s+(-chdir=\S+\s+)?(fmt|validate|plan|init)\b",
    r"(pulumi\s+preview|(npx\s+)?cdk\s+(synth|diff)|sam\s+validate)\b",
    r"dbt\s+(run|build|test|compile|seed|snapshot|parse)\b",
    r"(helm\s+(lint|template)|kubeconform|kubeval|kustomize\s+build|tflint)\b",
    r"(pnpm|yarn|npx)\s+changeset\s+(status|version)\b",
    r"((php\s+)?(\./)?(bin/|vendor/bin/)?phpunit|composer\s+(test|install)|(\./)?vendor/bin/\S+|"
    r"php\s+artisan\s+(test|migrate|pint|dusk))\b",
    r"(swift)\s+(build|test)\b",
    r"(docker|podman)\s+(build|compose\s+(build|up))\b",
    r"(docker-compose)\s+(build|up)\b",
    r"(shellcheck|hadolint|actionlint|pre-commit|yamllint|markdownlint)\b",
    # Toolchains named by their own tool: Xcode, Ansible, OCaml, Haskell, Zig, Flutter, C/C++.
    r"(xcodebuild|swiftlint|swiftformat|ktlint|detekt|molecule|ansible-lint|ctest|dune|cabal|"
    r"stack|zig|flutter|gleam|elm|bats|phpstan|psalm|clang-tidy|cppcheck|stylelint|sqlfluff|"
    r"buf|bazel)\b(?!-)",
    # Any tool whose subcommand builds, tests or checks: `molecule test`, `opam exec -- dune
    # build`, `nix flake check`, `sbt compile`; a program named for it: `ansible-lint`, `ctest`.
    r"(?!(cat|ls|grep|rg|find|head|tail|less|more|echo|printf|git|rm|mv|cp|mkdir|touch|cd|which|"
    r"man|curl|wget|open|code|vim|nano|sed|awk|wc|file|stat|du|diff|tree|bat|jq|tee|xargs|kill|"
    r"type|source|export|gh)\s)[\w./-]+\s+(\S+\s+){0,2}(test|tests|build|check|lint|verify"
    r"|compile|typecheck|analyze|validate)(?=\s|$)",
    r"[\w./-]*(lint|check|test)(?=\s|$)",
    # Erlang, Clojure, Lua, Perl, R, Julia: their runners and the aliases that start them
    r"(rebar3\s+(eunit|ct|xref|dialyzer|compile|proper|check|fmt|lint)|(bin/)?kaocha|"
    r"(clojure|clj)\s+-[MXT]:\S+|lein\s+\S+|busted|luacheck|prove|Rscript|R\s+CMD\s+check|"
    r"julia\s+--project\S*|pest|ava|elixir\s+\S+\.exs)\b",
    # embedded toolchains: Zephyr's west, ESP-IDF, PlatformIO
    r"(west\s+(build|flash|twister)|idf\.py\s+(build|flash)|pio\s+(run|test)|platformio\s+"
    r"(run|test))\b",
    # platforms' own CLIs: Apps Script (clasp), Drupal (drush), sqlx's offline data, Flink
    # and Spark jobs, a systemd unit started to check it
    r"(clasp\s+(push|run|pull)|drush\s+(cr|cache:rebuild|cache-rebuild|updb|updatedb|cim|"
    r"config:import|deploy)|cargo\s+sqlx\s+prepare|flink\s+run|spark-submit|(sudo\s+)?"
    r"systemctl\s+(--user\s+)?start\s+\S+\.(service|timer))\b",
    # schema migrations, applied with the project's tool
    r"(goose|dbmate|flyway|liquibase|sqitch|atlas\s+migrate|diesel\s+migration|"
    r"sqlx\s+migrate|prisma\s+migrate|knex\s+migrate|(bin/)?rails\s+db:|(bundle\s+exec\s+)?"
    r"rake\s+db:|migrate)\b.*\b(up|deploy|apply|run|migrate|latest)\b",
    r"(alembic\s+upgrade|manage\.py\s+(test|migrate|check)|python\d*\s+manage\.py\s+(test|migrate|check))\b",
    r"(python\d*(\.\d+)?|\.venv/bin/python\d*)\s+\S+\.py\b",
    r"\.venv/bin/\S+",
    r"\./\S+\.(sh|py)\b",
    r"(bash|sh)\s+\S+\.sh\b",
]

# Commands that destroy or overwrite: never remembered as "this works, run it again".
_DESTRUCTIVE = [
    r"\brm\s+(-\w*\s+)*-\w*[rf]",  # rm -rf, rm -r, rm -f …
    r"\brm\s+--(recursive|force)\b",
    r"\bgit\s+push\b.*(\s--force\b|\s-f\b|\s--force-with-lease\b|\s\+\S)",
    r"\bgit\s+reset\s+--hard\b",
    r"\bgit\s+clean\s+-\w*[fdx]",
    r"\bgit\s+(checkout|restore)\s+(--\s+)?\.(\s|$)",
    r"\bgit\s+branch\s+-D\b",
    r"\bgit\s+filter-(branch|repo)\b",
    r"\bterraform\s+(destroy|apply\s+.*-destroy)\b",
    r"\bterraform\s+apply\b.*-auto-approve",
    r"\bpulumi\s+(destroy|down)\b",
    r"\b(drop|truncate)\s+(table|database|schema|index)\b",
    r"\bdelete\s+from\b",
    r"\bkubectl\s+(delete|drain|replace\s+--force)\b",
    r"\bhelm\s+(uninstall|delete)\b",
    r"\bdocker\s+(system|volume|image|container)\s+prune\b",
    r"\bdocker\s+(rm|rmi)\b",
    r"\b(mkfs|fdisk|parted|wipefs)\b",
    r"\bdd\s+.*\bof=",
    r"\bshred\b",
    r"\bchmod\s+(-R\s+)?0?777\b",
    r"\bchown\s+-R\b",
    r">\s*/dev/sd",
    r"\b(shutdown|reboot|halt|poweroff)\b",
    r"\bkill\s+-9\b|\bkillall\b|\bpkill\b",
    r"\bnpm\s+(unpublish|publish)\b|\btwine\s+upload\b|\bcargo\s+publish\b",
    r"\bgh\s+(repo|release)\s+delete\b",
    r"\baws\s+s3\s+(rm|rb)\b|\bgsutil\s+(-m\s+)?rm\b",
    r"\bredis-cli\b.*\bflush(all|db)\b",
    r"--no-verify\b",
    r":\(\)\s*\{",  # fork bomb
    r"\bsudo\b",
    r"\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(ba|z)?sh\b",
]

# Output that says a command failed even though the tool reported no error.
_FAILURE = (
    r"(^|\n)\s*(FAILED|FAIL\b|ERROR\b|Error:|error(\[E\d+\])?:|Traceback \(most recent call last\)"
    r"|npm ERR!|make(\[\d+\])?: \*\*\*|command not found|No such file or directory"
    r"|BUILD FAILED|Exit code [1-9]|--- FAIL\b|\*\* \(\w+Error\)|Command timed out after)"
    # Summaries anywhere on a line: "test result: FAILED. 2 passed; 1 failed", "Tests: 3
    # failed", "11 failures" (a count of zero is a pass).
    r"|\b[1-9]\d* (failed|failures?|errors?)\b|\btest result: FAILED\b|\.\.\. FAILED\b"
    r"|\bpanicked at\b|\bTests?:\s+[1-9]\d* failed\b|\bHalting VM with exit status [1-9]"
    # Compilers and runners of other toolchains: `file.swift:15: error: …`, xcodebuild's
    # "** TEST FAILED **", Ansible's "fatal: [host]: FAILED!", molecule's CRITICAL line.
    r"|:\d+(:\d+)?:\s+(fatal )?error:|\*\* [A-Z ]*FAILED \*\*|\bFAILED!|(^|\n)CRITICAL\b"
    r"|\berror TS\d+:|\berror CS\d+:"  # tsc's "db.ts(7,4): error TS2339: …", dotnet's CS
    r"|==\d+==\s*ERROR:|\b[1-9]\d* tests? failed\b"  # sanitizers; ctest's summary
    # JUnit/NUnit XML reports (Unity, Gradle, Maven) and TAP harnesses (pg_prove, prove)
    r"|\b(failures|failed|errors)=\"[1-9]\d*\"|\bresult=\"Failed|<failure[\s>]|\bResult: FAIL\b"
    # sbt's and Maven's log levels: "[error] Foo.scala:14:50: …", "[ERROR] BUILD FAILURE"
    r"|(^|\n)\[(error|ERROR)\]\s|\bBUILD FAILURE\b|(^|\n)==> X "  # munit's failed test
    # A shell that could not find the program ("sh: vite: command not found", zsh's
    # "zsh: command not found: tsx").
    r"|(^|\n)[\w./-]+:( line \d+:)? [^\n]{1,120}: command not found\b"
    r"|(^|\n)zsh: command not found: "
    # rebar3's verdicts (common test, dialyzer): "Failed 1 tests.", "===> Failures occurred"
    r"|\bFailed [1-9]\d* tests?\b|\b(Failures|Errors|Warnings) occurred\b|:\s+FAILED\b"
)
_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_ENV_ASSIGN = r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+"
MAX_COMMAND_CHARS = 300


@functools.cache
def _patterns() -> dict[str, re.Pattern[str]]:
    """Compiled on first use: the prompt hook never needs them, and compiling costs ms."""
    return {
        "verifiable": re.compile(r"^(?:" + "|".join(_VERIFIABLE) + r")", re.IGNORECASE),
        "destructive": re.compile("|".join(_DESTRUCTIVE), re.IGNORECASE),
        "failure": re.compile(_FAILURE),
        "env": re.compile(_ENV_ASSIGN),
    }


def is_destructive(command: str) -> bool:
    return bool(_patterns()["destructive"].search(command))


def command_kind(command: str) -> str | None:
    """"test", "lint", "build" or "run" for a command worth verifying; None otherwise."""
    if not isinstance(command, str):
        return None
    command = command.strip()
    if not command or len(command) > MAX_COMMAND_CHARS or "\n" in command:
        return None
    if "<<" in command or is_destructive(command):
        return None
    from ..capture.shell import segments as shell_segments

    patterns = _patterns()
    kinds = []
    for words in shell_segments(command):
        inner = _contained(words)
        if inner:  # the checks a container runs: `docker run … bash -c "… && bats test/"`
            kinds += [kind] if (kind := command_kind(inner)) else []
            continue
        segment = " ".join(words)
        segment = patterns["env"].sub("", segment)
        segment = re.sub(r"^env\s+(?:(?:-u\s+\S+|-i|[A-Za-z_]\w*=\S*)\s+)*", "", segment)
        segment = patterns["env"].sub("", segment)
        segment = re.sub(r"^(cd\s+\S+|source\s+\S+|\.\s+\S+|time|timeout\s+\d+\w?)\s*", "", segment)
        segment = _WRAPPER_RE.sub("", segment)
        if patterns["verifiable"].match(segment):
            kinds.append(_classify(segment))
        elif _runs_tests(words):
            kinds.append("test")
    if not kinds:
        return None
    for kind in ("test", "lint", "build"):
        if kind in kinds:
            return kind
    return kinds[0]


# Environments that run the real command inside them: `nix develop -c cargo test` is a
# test run, as `cargo test` is.
_WRAPPER_RE = re.compile(
    r"^(nix\s+develop(\s+\S+)?\s+(-c|--command)|nix-shell\s+(\S+\s+)?--run|direnv\s+exec\s+\S+|"
    r"opam\s+exec\s+--|devbox\s+run|xvfb-run(\s+-a)?|dotenv(\s+-e\s+\S+)?\s+--|"
    r"mise\s+exec\s+--|asdf\s+exec|flox\s+activate\s+--)\s+['\"]?"
)


def _contained(words: list[str]) -> str:
    """The command a container runs through a shell (`docker run --rm -v … centos:7 bash -c
    "…"`, `docker compose exec api sh -c "…"`, `kubectl exec pod -- sh -c "…"`), or ""."""
    runs = words[:2] in (["docker", "run"], ["docker", "exec"], ["podman", "run"],
                         ["podman", "exec"], ["kubectl", "exec"]) or words[:3] in (
        ["docker", "compose", "run"], ["docker", "compose", "exec"])
    if not runs:
        return ""
    for index, word in enumerate(words[:-1]):
        if word == "-c" and index and words[index - 1].rsplit("/", 1)[-1] in ("sh", "bash"):
            return words[index + 1]
    return ""


# Programs that take a test folder as an argument without running it.
_NOT_A_RUNNER = frozenset("""
cat ls grep rg find head tail less more echo printf git rm mv cp mkdir touch cd which man curl
wget open code vim vi nano emacs sed awk wc file stat du diff tree bat jq tee xargs kill type
source export gh chmod chown ln rsync scp tar zip unzip du fd sort uniq cut basename dirname
realpath readlink test [ sqlite3 psql mysql docker kubectl
""".split())  # noqa: SIM905 - a word list reads better as prose
_TEST_TARGET_RE = re.compile(
    r"(^|[/=:])(tests?|specs?|__tests__|testing)(/|$)|"  # a test folder: tests/, -gdir=res://test
    r"(^|/)(test_\w+|\w+(_test|_spec|\.test|\.spec|Tests?))\.\w+$|"  # a test file
    r"^-+run-?tests?$",  # a runner's flag: Unity's -runTests
    re.IGNORECASE,
)


def _runs_tests(words: list[str]) -> bool:
    """A program run on the project's tests (`pg_prove tests/audit_test.sql`, `godot -s
    gut_cmdln.gd -gdir=res://test`, `Unity -runTests`) is a test run, whatever its name.
    `words` are the shell's: a quoted message that mentions tests is one word, not a path."""
    words = [w for w in words if not re.match(r"^[A-Za-z_]\w*=", w)]  # env assignments
    if len(words) < 2 or words[0].rsplit("/", 1)[-1].lower() in _NOT_A_RUNNER:
        return False
    return any(" " not in word and _TEST_TARGET_RE.search(word) for word in words[1:])


def _classify(segment: str) -> str:
    low = segment.lower()
    if re.search(r"\b(test|pytest|jest|vitest|mocha|rspec|phpunit|nextest|unittest|tox|nox|eunit|"
                 r"ct|kaocha|busted|prove|pest|ava)\b", low):
        return "test"
    if re.search(r"\b(lint|ruff|mypy|pyright|eslint|clippy|vet|flake8|pylint|black|isort|prettier"
                 r"|tsc|typecheck|fmt|format|shellcheck|rubocop|credo|staticcheck|check|dialyzer"
                 r"|validate|kubeconform|tflint|xref|luacheck)\b", low):
        return "lint"
    if re.search(r"\b(build|compile|make|cmake|ninja|bazel|install|sync|ci|gradle|mvn)\b", low):
        return "build"
    return "run"


# A run's own word that it passed: what a searched output must still show to count.
_PASSED_RE = re.compile(
    r"\b(passed|pass|ok|build successful|succeeded|success(ful)?|0 (failed|failures|errors))\b|✓",
    re.IGNORECASE)


def shows_pass(output: Any) -> bool:
    """Whether what a search left of a run's output says it passed — or left nothing: a
    search for problem lines that finds none (`mix dialyzer | grep "^lib/"`) is clean."""
    return isinstance(output, str) and (not output.strip() or bool(_PASSED_RE.search(output)))


def bash_succeeded(tool_response: Any) -> bool:
    """Claude Code's Bash result is {stdout, stderr, interrupted, isImage, …}: no exit code.

    A non-zero exit usually arrives as PostToolUseFailure (or an error string), so a dict
    here means success unless it was interrupted, carries an explicit non-zero code, or its
    output reads like a failure (a test runner that printed "2 failed" but exited 0 via
    `|| true`).
    """
    if not isinstance(tool_response, dict):
        return False
    if tool_response.get("interrupted") or tool_response.get("is_error"):
        return False
    for key in ("exit_code", "exitCode", "returncode", "return_code", "code"):
        code = tool_response.get(key)
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            return False
    tail = "\n".join(
        str(tool_response.get(key) or "")[-4000:] for key in ("stdout", "stderr", "output")
    )
    # Colour codes sit where a line starts: "\x1b[31merror\x1b[39m: …" is an error line.
    return not _patterns()["failure"].search(_ANSI_RE.sub("", tail))


# --- memory files ------------------------------------------------------------------------


def is_memory_file(path: Any) -> bool:
    """Claude's own memory notes: MEMORY.md anywhere, or Markdown under a `memory/` folder."""
    if not isinstance(path, str) or not path.lower().endswith(".md"):
        return False
    parts = path.replace("\\", "/").split("/")
    return parts[-1].upper() == "MEMORY.MD" or (len(parts) >= 2 and parts[-2].lower() == "memory")
