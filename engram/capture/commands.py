"""Shell commands in a session: what a command is an instance of, whether its failure
says something about the project, whether it passed, and the failing streaks that end in a
fix (stdlib only, like the rest of capture).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..hooks import triage
from . import shell
from .reading import shorten
from .transcript import TIMED_OUT_RE, ToolCall

# Programs whose failure says something about the project (not `ls` finding nothing).
_WATCHED = frozenset({
    "git", "docker", "docker-compose", "podman", "kubectl", "helm", "terraform", "alembic",
    "curl", "wget", "http", "psql", "mysql", "redis-cli", "gh", "pip", "pip3", "brew",
    "apt", "apt-get",
})
_READ_ONLY = frozenset({
    "ls", "cat", "head", "tail", "grep", "rg", "find", "pwd", "echo", "wc", "which", "tree",
    "file", "stat", "less", "more", "du", "df", "env", "printenv", "whoami", "date", "sleep",
    "type", "diff", "jq", "bat", "fd", "test", "[",
})
# Moving files around: a failure here (a wrong path) says nothing about the project.
_HOUSEKEEPING = frozenset({
    "rm", "rmdir", "mv", "cp", "mkdir", "touch", "chmod", "chown", "ln", "kill", "pkill",
    "killall", "open", "xdg-open", "cd", "pushd", "popd", "trash",
})
_GIT_READ_ONLY = frozenset({"status", "log", "diff", "show", "branch", "remote", "rev-parse",
                            "ls-files", "blame", "grep", "fetch", "describe", "config",
                            "ls-remote", "ls-tree", "cat-file", "shortlog"})
_SUBCOMMAND_PROGRAMS = frozenset({
    "npm", "pnpm", "yarn", "bun", "cargo", "go", "mix", "git", "docker", "uv", "poetry", "pdm",
    "hatch", "dotnet", "swift", "gradle", "gradlew", "mvn", "mvnw", "bundle", "rails", "rake",
    "make", "just", "task", "kubectl", "terraform", "helm", "npx", "deno", "composer", "pip",
    "pip3", "gh", "alembic", "docker-compose", "podman", "flutter", "dart", "sbt", "lein",
})
# Subcommands that only show what a build tool knows: questions asked once, not recipes.
_INSPECTIONS = frozenset({
    "query", "aquery", "cquery", "info", "version", "help", "show", "list", "ls", "describe",
    "outdated", "why", "explain", "tree", "graph", "env", "doctor", "dependencies", "deps:tree",
})
_PREFIXES = frozenset({"time", "sudo", "nice", "nohup", "command", "exec", "env"})
_ASSIGN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")  # `FOO=bar cmd`: an env assignment


def words_of(command: str, *, last: bool = False) -> list[str]:
    """A meaningful simple command's words — the first, or the last one that does work —
    past `cd`, env assignments, `time`, `timeout N`, reporters and output filters."""
    found: list[list[str]] = []
    for words in shell.segments(command):
        rest = [w for w in words if not _ASSIGN_RE.match(w)]
        while rest and (rest[0] in _PREFIXES or rest[0] == "timeout"):
            rest = rest[2:] if rest[0] == "timeout" and len(rest) > 1 else rest[1:]
        if not rest or rest[0] in ("cd", "source", ".", "export", "set", "pushd"):
            continue
        if found and rest[0] in shell.FILTERS | shell.REPORTERS:
            continue
        if not last:
            return rest
        found.append(rest)
    return found[-1] if found else []


def family(command: str) -> str:
    """What a command is an instance of: `pytest`, `npm run build`, `git push`."""
    words = words_of(command, last=True)
    if not words:
        return ""
    program = words[0].rsplit("/", 1)[-1]
    args = words[1:]
    if re.match(r"^python\d*(\.\d+)?$", program) and args[:1] == ["-m"] and len(args) > 1:
        program, args = args[1], args[2:]
    name = program
    if args[:1] in (["-e"], ["-c"], ["--eval"]) and len(args) > 1:
        # an inline script is its own command: `Rscript -e 'devtools::test()'` is not
        # `Rscript -e 'str(fread(...))'`
        return f"{program} {args[0]} {' '.join(args[1].split())[:80]}"
    if program in _SUBCOMMAND_PROGRAMS:
        subs = [a for a in args if not a.startswith("-")][:2 if args[:1] in (["run"], ["exec"])
                                                          else 1]
        name = " ".join([program, *subs])
    return name


def vouched_before(command: str) -> list[str]:
    """The commands a successful run of `command` shows passed besides its last one: those
    chained to it by `&&` (`go test ./... && go vet ./...`; not `a` in `a; b && c`)."""
    if "&&" not in command:
        return []
    try:
        pipelines = shell.parse(command).pipelines
    except shell.ShellSyntaxError:
        return []
    vouched: list[str] = []
    for pipeline in reversed(pipelines[:-1]):
        if pipeline.control != "&&":
            break
        vouched.insert(0, command[pipeline.stages[0].start:pipeline.stages[-1].end])
    return vouched


def program_of(command: str) -> str:
    words = words_of(command)
    return words[0].rsplit("/", 1)[-1] if words else ""


def is_housekeeping(command: str) -> bool:
    return program_of(command) in _HOUSEKEEPING


def is_watched(command: str) -> bool:
    """A command whose failure and later success is worth remembering."""
    return triage.command_kind(command) is not None or program_of(command) in _WATCHED


def is_read_only(command: str) -> bool:
    words = words_of(command)
    if not words:
        return True
    program = words[0].rsplit("/", 1)[-1]
    if program in _SHELL_KEYWORDS:  # a loop: read-only when every command in it is
        body = [[w for w in segment if w not in _SHELL_KEYWORDS and not _ASSIGN_RE.match(w)]
                for segment in shell.segments(command)[1:]]
        return all(is_read_only(" ".join(words)) for words in body if words)
    if program == "git":
        sub = next((w for w in words[1:] if not w.startswith("-")), "")
        return sub in _GIT_READ_ONLY
    if program in ("gh", "glab") and words[1:2] == ["api"]:  # a GET unless told otherwise
        return not any(w in ("-X", "--method", "-f", "-F", "--field", "--raw-field", "--input")
                       or w.startswith(("-X", "--method=")) for w in words[2:])
    if program in ("gh", "glab") and len(words) > 2 and words[2] in _FORGE_LOOKS:
        return True  # `gh pr view 12`, `glab ci list`: looking at the forge
    return program in _READ_ONLY


# What `gh` / `glab` subcommands only show: `gh run list`, `glab mr view 12`, `gh pr checks`.
_FORGE_LOOKS = frozenset({"view", "list", "status", "diff", "checks", "log", "watch", "trace"})


_SHELL_KEYWORDS = frozenset({"for", "while", "until", "do", "done", "if", "then", "else", "fi"})

# Programs that only ask: the machine, a service, the network. With the subcommands that do
# (None: every use asks).
_ASKING: dict[str, frozenset[str] | None] = {
    **dict.fromkeys(("ps", "pgrep", "lsof", "netstat", "ss", "dig", "nslookup", "host", "ping",
                     "uname", "sw_vers", "system_profiler", "sysctl", "id", "uptime",
                     "journalctl", "dmesg", "mdfind", "vm_stat", "ioreg", "nvidia-smi",
                     "free", "top", "htop", "traceroute"), None),
    "launchctl": frozenset({"list", "print", "blame"}),
    "systemctl": frozenset({"status", "show", "list-units", "list-timers", "is-active",
                            "is-enabled", "cat"}),
    "kubectl": frozenset({"get", "describe", "logs", "top", "explain", "api-resources"}),
    "docker": frozenset({"ps", "logs", "inspect", "images", "info", "stats"}),
    "brew": frozenset({"info", "list", "search", "deps", "uses"}),
    "argocd": frozenset({"app", "proj", "cluster", "repo"}),
    "helm": frozenset({"list", "status", "get", "history", "show"}),
    "npm": frozenset({"view", "ls", "info", "outdated"}),
    "pip": frozenset({"show", "list"}), "pip3": frozenset({"show", "list"}),
}
_HTTP = frozenset({"curl", "wget", "http", "https", "xh"})
_SENDING = frozenset({"-d", "--data", "--data-raw", "--data-binary", "--json", "-F", "--form",
                      "-T", "--upload-file", "-X", "--request", "--post-data"})
# A request sent with a body that still only reads: a search, a query, an RPC read.
_READ_REQUEST_RE = re.compile(r"search|query|graphql|jsonrpc|/rpc\b|\bget[A-Z]\w+", re.I)
# A throwaway file's place (`/tmp/t.zig`, macOS's `/private/tmp`, `/dev/shm`): no project's.
SCRATCH_RE = re.compile(r"^(/private)?(/var)?/tmp/|^/dev/shm/")
_INTERPRETERS = frozenset({"node", "python", "python3", "ruby", "deno", "bun", "perl"})


def is_query(command: str) -> bool:
    """A command that asks and changes nothing in the project: a process list, a service's
    state, an HTTP GET, a throw-away script (inline or in /tmp) fetching data; every other
    part of it only reads. `argocd app diff`, `launchctl list`, `curl …/rpc`, `gh pr view`,
    `ssh host docker ps` are queries; `git push`, `kubectl apply`, `npm test` are not."""
    parts = shell.segments(command)
    asked = False
    for words in parts:
        rest = [w for w in words if not _ASSIGN_RE.match(w)]
        if rest[:1] == ["for"]:
            continue  # the loop's list; its body is the next part
        while rest and rest[0] in _PREFIXES | _SHELL_KEYWORDS:
            rest = rest[1:]
        if not rest or rest[0] in ("cd", "export", "set"):
            continue
        program = rest[0].rsplit("/", 1)[-1]
        if program == "ssh":
            remote = _remote_command(rest[1:])
            if remote and not (is_query(remote) or is_read_only(remote)):
                return False  # a change made over there
            asked = True  # a login shows the machine; a read-only command asks it
        elif program in _HTTP:
            if any(w in _SENDING or w.startswith(("-X", "--data", "-d")) for w in rest[1:]) and (
                not any(w in ("GET", "-XGET") for w in rest)
            ) and not _READ_REQUEST_RE.search(" ".join(rest)):
                return False
            asked = True
        elif program in _INTERPRETERS:
            inline = any(w in ("-e", "-c", "-p", "--eval", "-") for w in rest[1:3])
            script = next((w for w in rest[1:] if not w.startswith("-")), "")
            if not (inline or SCRATCH_RE.match(script)):
                return False
            asked = True
        elif program in _ASKING:
            subcommands = _ASKING[program]
            sub = next((w for w in rest[1:] if not w.startswith("-")), "")
            if subcommands is not None and sub not in subcommands:
                return False
            asked = True
        elif not is_read_only(" ".join(rest)):
            return False
        elif program in ("gh", "glab"):
            asked = True  # the forge's state (`gh api …/protection`, `gh run view`)
    return asked


# ssh's options that take a value (`-o ConnectTimeout=10`, `-p 2222`, `-i key`).
_SSH_VALUED = frozenset("bcDEeFIiJLlmOopQRSWw")


def _remote_command(args: list[str]) -> str:
    """What `ssh [options] host command…` runs over there ("" for a login)."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        flag = args[index]
        index += 2 if len(flag) == 2 and flag[1] in _SSH_VALUED else 1
    return " ".join(args[index + 1:])


def run_outcome(call: ToolCall) -> bool | None:
    """True passed, False failed, None unknown (no result, interrupted or rejected)."""
    if call.failed is None or call.interrupted or call.rejected:
        return None
    if TIMED_OUT_RE.match(call.output):
        return None  # Claude Code stopped waiting (a server, a watcher): not a verdict
    if call.failed:
        return False
    command = call.command or ""
    # A test run piped through `tail` exits 0: its output still says whether it passed.
    if triage.command_kind(command) is None:
        return True
    if not triage.bash_succeeded({"stdout": call.output}):
        return False
    return None if verdict_hidden(command, call.output) else True


def verdict_hidden(command: str, output: object) -> bool:
    """Whether a check's output was searched (`go test -v | grep token`) and what the
    search kept does not say it passed: the run proves nothing either way."""
    return triage.command_kind(command) not in (None, "run") and shell.searched(command) and (
        not triage.shows_pass(output))


_INFO_FLAGS = frozenset({"--version", "-V", "-v", "version", "--help", "-h", "help"})
_HELP_FLAGS = frozenset({"--version", "--help", "-h"})
_SCRIPT_RE = re.compile(r"\.(py|sh|js|mjs|cjs|ts|rb|pl|php|zig|go|rs|c|cc|cpp|java|kt|swift|lua|"
                        r"exs?|hs|ml|scala|cs|dart|nim|jl)$")


def asks_for_info(words: list[str]) -> bool:
    """`node --version`, `clickhouse-benchmark --help`, `python3 tool.py --help`: a look at
    a tool or a script, nothing run."""
    return len(words) > 1 and all(w in _INFO_FLAGS for w in words[1:]) or (
        2 < len(words) <= 4 and words[-1] in _HELP_FLAGS
        and not any(w.startswith("-") for w in words[1:-1]))


def _does_work(segment: list[str]) -> bool:
    words = [w for w in segment if w not in _PREFIXES]
    if not words or words[0] in _READ_ONLY | _HOUSEKEEPING:
        return False
    sub = next((w for w in words[1:] if not w.startswith("-")), "")
    return sub not in _INSPECTIONS


def is_recipe(command: str, cwd: str | None) -> bool:
    """A command worth keeping as "this is how it is done here": a build, test, lint or run
    of the project — not `node --version`, not a script outside the project's folder (a
    plugin's, a scratch file in /tmp)."""
    if triage.command_kind(command) is None:
        return False
    if asks_for_info(words_of(command, last=True)):
        return False
    if not any(_does_work(segment) for segment in shell.segments(command)):
        return False  # `bazel aquery …`, `cargo tree`: a look at the build, not a recipe
    if any(_adds_package(segment) or _scaffolds(segment) for segment in shell.segments(command)):
        return False  # `npm install --save-dev prettier`, `npx create-next-app@latest web`: a
        # change made once, not a recipe
    if any(len([w for w in segment[1:] if _SOURCE_FILE_RE.search(w)]) >= 3
           for segment in shell.segments(command)):
        return False  # `prettier --write a.ts b.ts c.ts`: this change's files, not a recipe
    root = (cwd or "").rstrip("/") + "/"
    for segment in shell.segments(command):
        if segment[:1] == ["cd"] and len(segment) == 2 and SCRATCH_RE.match(segment[1]) and (
            not (cwd and (segment[1].rstrip("/") + "/").startswith(root))  # a project in /tmp
        ):
            return False  # `cd /tmp/zigtry && zig run main.zig`: a throwaway, no recipe
        for word in segment:
            if word.startswith(("/", "~")) and _SCRIPT_RE.search(word) and not (
                cwd and word.startswith(root)
            ):
                return False
    return True


_SOURCE_FILE_RE = re.compile(r"^[^-=][^=]*\.(py|ts|tsx|js|jsx|mjs|rs|go|rb|ex|exs|java|kt|cs|"
                             r"php|swift|c|cc|cpp|h|hpp|vue|svelte|css|scss|lua|scala|dart)$")
_ADDING = {("npm", "install"), ("npm", "i"), ("npm", "add"), ("pnpm", "add"), ("pnpm", "install"),
           ("pnpm", "i"), ("yarn", "add"), ("bun", "add"), ("bun", "install"), ("pip", "install"),
           ("pip3", "install"), ("uv", "add"), ("poetry", "add"), ("pdm", "add"),
           ("cargo", "add"), ("go", "get"), ("gem", "install"), ("composer", "require"),
           ("dotnet", "add"), ("mix", "archive.install"), ("expo", "install")}


def _adds_package(segment: list[str]) -> bool:
    """A package manager asked to add named packages ("npm i -D prettier", "pip install
    requests"): not the install of what the project already declares (`npm install`, `pip
    install -r requirements.txt`, `pip install -e .`)."""
    words = [w for w in segment if w not in _PREFIXES]
    if words[:1] in (["npx"], ["uvx"]):
        words = words[1:]
    if len(words) < 3 or (words[0].rsplit("/", 1)[-1], words[1]) not in _ADDING:
        return False
    named = [w for w in words[2:] if not w.startswith("-")]
    if "-r" in words or "--requirement" in words or "-e" in words or "--editable" in words:
        return False
    return bool(named) and not all(w in (".", "./") for w in named)


# Creating a project from a template, or listing what a test runner knows: run once.
_SCAFFOLD = {("npm", "init"), ("npm", "create"), ("pnpm", "create"), ("pnpm", "init"),
             ("yarn", "create"), ("bun", "create"), ("cargo", "new"), ("cargo", "init"),
             ("rails", "new"), ("django-admin", "startproject"), ("django-admin", "startapp"),
             ("mix", "new"), ("mix", "phx.new"), ("dotnet", "new"),
             ("poetry", "new"), ("uv", "init"), ("composer", "create-project"),
             ("flutter", "create"), ("ng", "new"), ("vue", "create")}
_LISTING_FLAGS = frozenset({"--collect-only", "--co", "--markers", "--fixtures", "--list",
                            "--listTests", "--list-tests"})


def _scaffolds(segment: list[str]) -> bool:
    """`npx create-next-app@latest web`, `npm create vite@latest`, `cargo new cli`, `uv
    init`: a project made from a template; or `pytest --collect-only`, `pytest --markers`:
    what the runner knows, listed."""
    words = [w for w in segment if w not in _PREFIXES]
    if any(w in _LISTING_FLAGS for w in words):
        return True
    if words[:1] in (["npx"], ["uvx"], ["pnpx"], ["bunx"]):
        words = [w for w in words[1:] if not w.startswith("-")]
        return bool(words) and words[0].split("@")[0].rsplit("/", 1)[-1].startswith("create-")
    return len(words) >= 2 and (words[0].rsplit("/", 1)[-1], words[1]) in _SCAFFOLD or (
        words[:3] == ["go", "mod", "init"])


def targets(command: str, cwd: str | None) -> list[str]:
    """The non-option words of a command's working part, relative paths resolved against
    the folder it `cd`s into: `node assets/build.js` and `cd assets && node build.js` name
    the same script."""
    here = cwd or ""
    found: list[str] = []
    for words in shell.segments(command):
        if words[0] == "cd" and len(words) == 2:
            here = words[1] if words[1].startswith("/") else os.path.join(here, words[1])
            continue
        if found or words[0] in shell.FILTERS | shell.REPORTERS:
            continue
        for word in words:
            if word.startswith("-"):
                continue
            if "/" in word or "." in word.strip("."):
                word = os.path.normpath(word if word.startswith("/") else os.path.join(here, word))
            found.append(word)
    return found


def display_command(command: str) -> str:
    """The command as typed when it is a one-line recipe; else what it is an instance of
    (a commit with a heredoc message is shown as `git commit`)."""
    normalized = shell.normalize_command(command)
    if normalized and len(normalized) <= 200:
        return normalized
    name = family(command)
    if not name:
        return shorten(command, 120)
    # with the switches typed before its message: `git commit --no-gpg-sign` worked
    # where `git commit` failed
    words = words_of(command, last=True)
    switches = []
    for word in words[len(name.split()):]:
        if not word.startswith("-") or word in ("-m", "--message", "-F", "--file") or (
            "\n" in word or len(word) > 40
        ):
            break
        switches.append(word)
    return " ".join([name, *switches])


@dataclass
class Streak:
    """A command family failing: since when, with what, and whether anything changed."""

    call: ToolCall
    error: str
    changed: bool = False
    retried: ToolCall | None = None  # the first failure with the same error after a change


def same_error(a: str, b: str) -> bool:
    """The same problem, whatever line numbers, ids and timings say."""
    def key(text: str) -> str:
        return re.sub(r"[\d_:/.\\-]+|0x[0-9a-f]+", " ", text.lower()).split("—")[0].strip()

    return key(a) == key(b)


# What a failure names: an error class, an error code ("P2002", "TS2345", "ERR_REQUIRE_ESM").
_NAMED_RE = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b|\b[A-Z]{1,5}\d{3,5}\b|\bERR_[A-Z_]+\b")


def names_new_failure(before: str, after: str) -> bool:
    """The same check failing again after a change, but naming an error class or code the
    first run did not (the same test title over "expected 409, got 201" and then over a
    PrismaClientKnownRequestError P2002): the change fixed the first problem and the next
    one showed."""
    return bool(set(_NAMED_RE.findall(after)) - set(_NAMED_RE.findall(before)))


_WRONG_FOLDER_RE = re.compile(r"\bcd:?\b.*(no such file|not a directory|can't cd)|"
                              r"no such file or directory: \S+$", re.IGNORECASE)


def wrong_folder(error: str) -> bool:
    """`cd data-capture && npm start` run from inside data-capture: a slip of the shell,
    not the project's problem."""
    return bool(_WRONG_FOLDER_RE.search(error))


def kept_running(call: ToolCall, streak: Streak) -> bool:
    """A program that crashed at start and now runs until Claude Code stops waiting (a
    server, a service), or runs in the background printing no crash: the crash was fixed.
    Tests and builds that hang are not fixed."""
    command = call.command or ""
    running = bool(TIMED_OUT_RE.match(call.output)) or bool(
        call.input.get("run_in_background") and call.output.strip() and call.failed is None)
    return (running and triage.command_kind(command) == "run"
            and not TIMED_OUT_RE.match(streak.call.output))
