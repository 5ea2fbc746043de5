# ruff: noqa: E501  (verbatim command output and file contents)
"""pnpm/turbo monorepo: changesets releases, rules from a multi-select AskUserQuestion (English)."""

from make_sessions import Session

ROOT_PKG = '''{
  "name": "acme-monorepo",
  "private": true,
  "packageManager": "pnpm@9.15.4",
  "scripts": {
    "build": "turbo run build",
    "test": "turbo run test",
    "lint": "turbo run lint"
  },
  "devDependencies": {
    "turbo": "^2.4.2",
    "typescript": "^5.7.3"
  }
}
'''

CONFIG_V1 = '''{
  "$schema": "https://unpkg.com/@changesets/config@3.0.5/schema.json",
  "changelog": ["@changesets/changelog-github", { "repo": "acme-dev/acme" }],
  "commit": false,
  "access": "public",
  "baseBranch": "main",
  "updateInternalDependencies": "patch",
  "ignore": ["@acme/docs", "@acme/eslint-config", "@acme/tsconfig"]
}
'''

CONFIG_V2 = '''{
  "$schema": "https://unpkg.com/@changesets/config@3.0.5/schema.json",
  "changelog": ["@changesets/changelog-github", { "repo": "acme-dev/acme" }],
  "commit": false,
  "access": "public",
  "baseBranch": "main",
  "updateInternalDependencies": "patch",
  "privatePackages": { "version": false, "tag": false }
}
'''

WORKFLOW = '''name: Release

# We ship on Tuesdays only: the release runs on a schedule, never on every merge.
on:
  schedule:
    - cron: "0 9 * * 2" # Tuesday 09:00 UTC

concurrency: release

jobs:
  release:
    runs-on: ubuntu-latest
    permissions:
      contents: write
      pull-requests: write
      id-token: write
    steps:
      - uses: actions/checkout@v4
      - uses: pnpm/action-setup@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 22
          cache: pnpm
          registry-url: https://registry.npmjs.org
      - run: pnpm install --frozen-lockfile
      - run: pnpm turbo run build --filter=@acme/ui --filter=@acme/sdk
      - uses: changesets/action@v1
        with:
          publish: pnpm changeset publish
          version: pnpm changeset version
          commit: "chore(release): version packages"
          title: "chore(release): version packages"
        env:
          GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}
          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}
          NPM_CONFIG_PROVENANCE: true
'''


def build() -> Session:
    s = Session("turbo-changesets-en", cwd="/Users/maren/acme", branch="chore/changesets",
                start="2026-02-27T13:30:08.004Z", version="2.1.50", model="claude-sonnet-4-6",
                stop_reasons=True, slug="bright-weaving-plover")
    s.user(
        "set up changesets so we can version packages/ui and packages/sdk independently and "
        "publish them to npm. we ship on Tuesdays only, so the release workflow should run on a "
        "schedule, not on every merge to main",
        wait=3,
    )
    s.read("package.json", ROOT_PKG)
    s.bash("ls packages apps && grep -H '\"private\"\\|\"name\"' packages/*/package.json apps/*/package.json", """\
eslint-config
sdk
tsconfig
ui
docs
packages/eslint-config/package.json:  "name": "@acme/eslint-config",
packages/sdk/package.json:  "name": "@acme/sdk",
packages/tsconfig/package.json:  "name": "@acme/tsconfig",
packages/ui/package.json:  "name": "@acme/ui",
apps/docs/package.json:  "name": "@acme/docs",
apps/docs/package.json:  "private": true,""", desc="List workspace packages")
    q1 = "Which packages should be published to npm?"
    q2 = "How should the version-bump commits and PR be titled?"
    s.ask(
        [
            {"question": q1, "header": "Publish", "multi": True,
             "options": [("@acme/ui", "React components"), ("@acme/sdk", "API client"),
                         ("@acme/eslint-config", "Shared lint config"), ("@acme/tsconfig", "Shared tsconfig")]},
            {"question": q2, "header": "Commits",
             "options": [("Changesets default", "\"Version Packages\""),
                         ("Conventional commits", "\"chore(release): version packages\"")]},
        ],
        {q1: "@acme/ui, @acme/sdk",
         q2: "Conventional commits — always, our changelog tooling and the release notes bot parse them"},
        wait=55,
    )
    s.say(
        "So only `@acme/ui` and `@acme/sdk` go to npm; `eslint-config` and `tsconfig` stay "
        "internal, and commit/PR titles follow conventional commits.\n\n"
        "On versioning: no `linked` or `fixed` groups. The SDK has external customers who pin "
        "majors, while the UI kit changes almost weekly — tying their versions together would "
        "push SDK users through meaningless bumps. Each package gets its own changelog and "
        "version line."
    )
    s.bash("pnpm add -Dw @changesets/cli @changesets/changelog-github 2>&1 | tail -3", """\
devDependencies:
+ @changesets/changelog-github 0.5.0
+ @changesets/cli 2.27.12""", desc="Install changesets", secs=9.0)
    s.write(".changeset/config.json", CONFIG_V1)
    s.write(".changeset/README.md", "Run `pnpm changeset` in your PR to describe user-facing changes to @acme/ui or @acme/sdk.\n")
    s.bash("pnpm changeset status", """\
🦋  error ValidationError: The package "@acme/ui" depends on the ignored package "@acme/tsconfig", but "@acme/ui" is not being ignored. Please add "@acme/ui" to the `ignore` option.
🦋  error The package "@acme/sdk" depends on the ignored package "@acme/eslint-config", but "@acme/sdk" is not being ignored. Please add "@acme/sdk" to the `ignore` option.""",
           code=1, desc="Validate changesets config", secs=3.0)
    s.say(
        "`ignore` is the wrong tool here: changesets refuses to ignore a package that a released "
        "package depends on (ui and sdk both devDepend on the shared configs). What we want is "
        "\"never publish these\", which is what `\"private\": true` plus `privatePackages: "
        "{ version: false, tag: false }` expresses — private packages are skipped for versioning "
        "and tags, and dependencies on them don't matter because they're never published."
    )
    s.write(".changeset/config.json", CONFIG_V2)
    s.bash("for p in eslint-config tsconfig; do node -e \"const f='packages/$p/package.json';const j=require('./'+f);j.private=true;require('fs').writeFileSync(f, JSON.stringify(j,null,2)+'\\n')\"; done && git diff --stat packages",
           """\
 packages/eslint-config/package.json | 3 ++-
 packages/tsconfig/package.json      | 3 ++-
 2 files changed, 4 insertions(+), 2 deletions(-)""", desc="Mark the config packages private")
    s.bash("pnpm changeset status 2>&1 | tail -8", """\
🦋  info NO packages to be bumped at patch, minor or major""", desc="Validate changesets config", secs=3.0)
    s.write(".github/workflows/release.yml", WORKFLOW)
    s.bash("actionlint .github/workflows/release.yml && pnpm turbo run build --filter=@acme/ui --filter=@acme/sdk 2>&1 | tail -5", """\

 Tasks:    2 successful, 2 total
Cached:    0 cached, 2 total
  Time:    14.882s
""", desc="Lint the workflow and build the published packages", secs=18.0)
    s.bash("git add -A .changeset .github/workflows/release.yml package.json pnpm-lock.yaml packages/eslint-config/package.json packages/tsconfig/package.json && git commit -q -m \"chore(release): set up changesets with a Tuesday release workflow\" && git log --oneline -1",
           "c41d9e7 chore(release): set up changesets with a Tuesday release workflow", desc="Commit")
    s.say(
        "Set up and committed (`c41d9e7`, conventional commit style):\n\n"
        "- `.changeset/config.json`: independent versions, GitHub changelog, private packages "
        "never versioned or tagged. `@acme/eslint-config` and `@acme/tsconfig` are now "
        "`\"private\": true`; `@acme/docs` already was.\n"
        "- `.github/workflows/release.yml`: runs Tuesdays 09:00 UTC only. `changesets/action` "
        "opens/updates the \"chore(release): version packages\" PR and publishes `@acme/ui` and "
        "`@acme/sdk` with npm provenance once that PR is merged and the next Tuesday run comes.\n"
        "- `pnpm changeset status`, `actionlint` and the build of both packages pass.\n\n"
        "You need to do one thing I can't: add an `NPM_TOKEN` (automation token for the `@acme` "
        "org) to the repository secrets, otherwise the first Tuesday run will fail at publish."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "AskUserQuestion with a multi-select answer and a free-text rule",
        "rule in the first prompt (ship on Tuesdays only)",
        "changesets validation error (exit 1) then pass",
        "decision with its why (independent versions)",
        "node -e inside a for loop",
        "todo (NPM_TOKEN)",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Tuesday"], ["ship", "release"]],
         "note": "We ship on Tuesdays only: releases run on a Tuesday schedule, never on every merge."},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["conventional commit"], ["chore(release)", "changelog", "release notes"]],
         "note": "Version-bump commits and PRs use conventional commits (chore(release): …): the "
                 "changelog tooling and release notes bot parse them."},
        {"id": "x1", "type": "project_fact", "types": ["project_fact", "decision", "preference"],
         "match": [["@acme/ui"], ["@acme/sdk"], ["npm", "publish"]],
         "note": "Only @acme/ui and @acme/sdk are published to npm; the config packages stay internal."},
        {"id": "d1", "type": "decision",
         "match": [["independent", "linked"], ["pin", "weekly"]],
         "note": "ui and sdk are versioned independently (no linked/fixed): SDK customers pin "
                 "majors while the UI kit changes weekly."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "failed_attempt", "decision"],
         "match": [["ignore"], ["privatePackages", "private"]],
         "note": "changesets' `ignore` fails when a released package depends on an ignored one; "
                 "private packages + privatePackages {version:false, tag:false} instead."},
        {"id": "t1", "type": "todo",
         "match": [["NPM_TOKEN"]],
         "note": "Add an NPM_TOKEN automation token to the repository secrets before the first "
                 "Tuesday run."},
        {"id": "v1", "type": "verified_command", "command": "pnpm changeset status"},
        {"id": "v2", "type": "verified_command",
         "command": "actionlint .github/workflows/release.yml && pnpm turbo run build --filter=@acme/ui --filter=@acme/sdk"},
    ],
    "secrets": [],
    "forbidden": [["User has answered your questions"]],
}
