# ruff: noqa: E501  (verbatim command output and file contents)
"""Empty: a developer asks why Bazel rebuilds after a branch switch; read-only digging and an explanation (English)."""

from make_sessions import Session

BAZELRC = '''common --enable_bzlmod
build --disk_cache=~/.cache/bazel-disk
build --remote_cache=grpcs://cache.buildbuddy.internal
build --remote_upload_local_results=false

# release metadata in every binary
build --stamp
build --workspace_status_command=tools/workspace_status.sh

build:ci --remote_upload_local_results=true
test --test_output=errors
'''

STATUS_SH = '''#!/usr/bin/env bash
# Values for stamped builds (see //tools:version.bzl).
echo "STABLE_GIT_COMMIT $(git rev-parse HEAD)"
echo "STABLE_GIT_BRANCH $(git rev-parse --abbrev-ref HEAD)"
echo "BUILD_TIMESTAMP_ISO $(date -u +%Y-%m-%dT%H:%M:%SZ)"
'''

AQUERY = '''action 'GoLink services/ledger/ledger_/ledger'
  Mnemonic: GoLink
  Target: //services/ledger:ledger
  Inputs: [bazel-out/k8-fastbuild/bin/services/ledger/ledger.a, bazel-out/stable-status.txt, bazel-out/volatile-status.txt, external/go_sdk/pkg/tool/linux_amd64/link, ...]
  Outputs: [bazel-out/k8-fastbuild/bin/services/ledger/ledger_/ledger]'''


def build() -> Session:
    s = Session("bazel-cache-explain-en", cwd="/home/priya/code/monorepo", branch="feature/ledger-csv",
                start="2026-03-05T14:10:03.511Z", version="2.1.55", slug="curious-stamping-wren")
    s.user(
        "quick question, not asking you to change anything: every time I switch branches and run "
        "`bazel build //services/...` it relinks basically every Go binary, even services I didn't "
        "touch. the remote cache is supposed to prevent that right? what's going on",
        wait=6,
    )
    s.call(s.read_call(".bazelrc", BAZELRC), s.read_call("tools/workspace_status.sh", STATUS_SH))
    s.grep("x_defs|stamp", content='''services/ledger/BUILD.bazel:14:    x_defs = {"main.version": "{STABLE_GIT_COMMIT}"},
services/payments/BUILD.bazel:22:    x_defs = {"main.version": "{STABLE_GIT_COMMIT}"},
services/search/BUILD.bazel:9:    x_defs = {"main.version": "{STABLE_GIT_COMMIT}"},
tools/go_binary.bzl:31:    stamp = -1,''', glob="*.bazel")
    s.bash("bazel info output_base && ls $(bazel info execution_root)/../../ | head -3", '''/home/priya/.cache/bazel/_bazel_priya/4e0c7d1f9b2a3c5d6e8f0a1b2c3d4e5f
execroot
external
install''', desc="Bazel output base")
    s.bash("bazel aquery 'mnemonic(\"GoLink\", //services/...)' --output=text 2>/dev/null | grep -c stable-status.txt", "214",
           desc="How many link actions read the stamp file", secs=9)
    s.bash("bazel aquery 'mnemonic(\"GoLink\", //services/ledger:ledger)' --output=text 2>/dev/null | head -5", AQUERY,
           desc="Inputs of one link action", secs=5)
    s.say(
        "It's the stamping, not the cache.\n\n"
        "`.bazelrc` has `build --stamp` plus a `workspace_status_command` that writes "
        "`STABLE_GIT_COMMIT` and `STABLE_GIT_BRANCH`. Every Go binary in `services/` puts the commit "
        "into `main.version` via `x_defs`, so every GoLink action has `stable-status.txt` as an "
        "input. Switching branches changes the commit → that file changes → every stamped link "
        "action's key changes → cache miss on all of them, touched or not. The compile actions "
        "don't read the status files, so they stay cache hits; it's the 214 links that hurt.\n\n"
        "Two more details:\n"
        "- `STABLE_` keys are the ones that invalidate. `BUILD_TIMESTAMP_ISO` is volatile, so it "
        "alone wouldn't trigger relinks.\n"
        "- `--remote_upload_local_results=false` locally means your laptop never fills the remote "
        "cache, so after a branch switch you can only hit entries CI produced for that exact "
        "commit.\n\n"
        "Teams usually keep `--stamp` only for release builds (e.g. under `build:release`) so dev "
        "builds link with an empty version — but that's a team decision, I've left everything as is."
    )
    s.turn_end()
    s.user("huh, and does the disk cache help at all then?", wait=70)
    s.say(
        "For compiles, yes: `--disk_cache` keeps action outputs keyed by their inputs, so switching "
        "back to a branch you built before is fast. For stamped links it only helps when you return "
        "to the same commit — a new commit is a new key everywhere."
    )
    s.turn_end()
    s.user("ok that explains it, thanks. was just curious", wait=35)
    s.say("You're welcome!")
    s.turn_end()
    s.local_command("exit", "Goodbye!", wait=6)
    return s


GOLD = {
    "covers": [
        "empty: a read-only question about Bazel (stamping, remote/disk cache) and its explanation",
        "'not asking you to change anything', 'was just curious': nothing changed, nothing decided",
        "the agent mentions what teams usually do, the user doesn't take it up",
        "/exit local command at the end",
    ],
    "language": "en",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
