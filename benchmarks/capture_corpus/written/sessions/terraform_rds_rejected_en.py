# ruff: noqa: E501  (verbatim command output and file contents)
"""Terraform RDS resize: stale AWS env vars, tool uses rejected by the user (English)."""

from make_sessions import Session

AKID = "AKIAZ7QH4VNL2K3XR9WD"
SECRET = "q8Vw3nT+eYk1LbR5xZ0cJm7uPd2sGh9AfW4oNi6E"
SESSION_TOKEN = ("IQoJb3JpZ2luX2VjEPr//////////wEaCWV1LXdlc3QtMSJHMEUCIQDx7Kp2Lm9Qw3Rt5Yz8Va1Bc4De6Fg0Hi2Jk"
                 "4Lm6No8Pq0Rs2Tu4Vw6Xy8Za0Bc2De4Fg6Hi8Jk0Lm2No4Pq6Rs8Tu0Vw2Xy4Za6Bc8De0Fg2Hi4Jk6Lm8==")

MAIN = '''module "db" {
  source  = "terraform-aws-modules/rds/aws"
  version = "6.10.0"

  identifier     = "helios-staging"
  engine         = "postgres"
  engine_version = "16.4"
  instance_class = "db.t3.medium"

  allocated_storage     = 100
  max_allocated_storage = 300

  db_name  = "helios"
  username = "helios_admin"
  manage_master_user_password = true

  multi_az               = false
  maintenance_window     = "Sun:03:00-Sun:04:00"
  backup_window          = "01:00-02:00"
  backup_retention_period = 7
  apply_immediately      = false

  vpc_security_group_ids = [module.sg_db.security_group_id]
  db_subnet_group_name   = module.vpc.database_subnet_group_name

  tags = local.tags
}
'''


def build() -> Session:
    s = Session("terraform-rds-rejected-en", cwd="/home/oskar/infra-live", branch="staging-rds-large",
                start="2026-03-04T10:12:44.515Z", version="2.1.45", slug="steady-lifting-petrel")
    s.user("the staging RDS instance needs to go from db.t3.medium to db.t3.large, and turn on "
           "performance insights while we're at it. it's in infra/envs/staging", wait=4)
    s.read("infra/envs/staging/rds.tf", MAIN)
    s.say("Two attribute changes in `infra/envs/staging/rds.tf`. Let me get a baseline plan first "
          "so the diff only shows what we change.")
    s.bash("terraform -chdir=infra/envs/staging plan -out=tfplan", """\
╷
│ Error: No valid credential sources found
│
│   with provider["registry.terraform.io/hashicorp/aws"],
│   on providers.tf line 1, in provider "aws":
│    1: provider "aws" {
│
│ Please see https://registry.terraform.io/providers/hashicorp/aws
│ for more information about providing credentials.
│
│ Error: failed to refresh cached credentials, operation error STS: AssumeRoleWithWebIdentity... ExpiredToken: The security token included in the request is expired
╵""", code=1, desc="Baseline plan", secs=9.0)
    s.bash("env | grep -E '^AWS_' ; aws configure list-profiles", f"""\
AWS_ACCESS_KEY_ID={AKID}
AWS_SECRET_ACCESS_KEY={SECRET}
AWS_SESSION_TOKEN={SESSION_TOKEN}
AWS_REGION=eu-west-1
staging
prod-readonly""", desc="Which AWS credentials are in play")
    s.say(
        "That's the cause: this shell has static `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / "
        "`AWS_SESSION_TOKEN` exported (probably from an old `aws sts assume-role` paste), and "
        "environment credentials take precedence over the `staging` SSO profile. The session "
        "token has expired, hence `ExpiredToken`. I won't touch your shell; I'll just run "
        "terraform without those three variables and with the profile. You may want to remove "
        "the exports from wherever they come from (`~/.zshrc`?) — and since the secret key was "
        "just printed here, rotate it if it's still valid."
    )
    s.bash("env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN AWS_PROFILE=staging terraform -chdir=infra/envs/staging plan -out=tfplan 2>&1 | tail -6", """\
module.db.module.db_instance.aws_db_instance.this[0]: Refreshing state... [id=db-5QJ2L7W3XKZ4B6N8R0T2V4X6Z8]

No changes. Your infrastructure matches the configuration.

Terraform has compared your real infrastructure against your configuration and found no
differences, so no changes are needed.""", desc="Baseline plan with the SSO profile", secs=24.0)
    s.say(
        "Clean baseline. Now the change. One thing to decide: changing `instance_class` "
        "restarts the instance (a few minutes of downtime on single-AZ staging). The module has "
        "`apply_immediately = false`, so the resize would wait for the Sunday 03:00 maintenance "
        "window. Since staging is used by the QA team during the day, I'll leave it that way "
        "rather than flip it — the reboot then happens when nobody is testing."
    )
    s.edit("infra/envs/staging/rds.tf", '''  instance_class = "db.t3.medium"''', '''  instance_class = "db.t3.large"''')
    s.edit("infra/envs/staging/rds.tf", '''  apply_immediately      = false
''', '''  apply_immediately      = false

  performance_insights_enabled          = true
  performance_insights_retention_period = 7 # free tier
''')
    s.bash("terraform fmt -check -recursive infra && terraform -chdir=infra/envs/staging validate", """\
infra/envs/staging/rds.tf
""", code=3, desc="Format check and validate")
    s.bash("terraform fmt infra/envs/staging/rds.tf && terraform fmt -check -recursive infra && terraform -chdir=infra/envs/staging validate", """\
infra/envs/staging/rds.tf
Success! The configuration is valid.""", desc="Format, then check and validate")
    s.bash("env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN AWS_PROFILE=staging terraform -chdir=infra/envs/staging plan -out=tfplan 2>&1 | tail -25", """\
Terraform will perform the following actions:

  # module.db.module.db_instance.aws_db_instance.this[0] will be updated in-place
  ~ resource "aws_db_instance" "this" {
        id                                    = "db-5QJ2L7W3XKZ4B6N8R0T2V4X6Z8"
      ~ instance_class                        = "db.t3.medium" -> "db.t3.large"
      ~ performance_insights_enabled          = false -> true
      + performance_insights_retention_period = 7
        tags                                  = {
            "env"   = "staging"
            "owner" = "platform"
        }
        # (61 unchanged attributes hidden)
    }

Plan: 0 to add, 1 to change, 0 to destroy.

─────────────────────────────────────────────────────────────────────────────

Saved the plan to: tfplan

To perform exactly these actions, run the following command to apply:
    terraform apply "tfplan\"""", desc="Plan the change", secs=26.0)
    s.say("Exactly the two changes, in place, nothing destroyed. Applying the saved plan:")
    s.bash_rejected(
        "env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN AWS_PROFILE=staging terraform -chdir=infra/envs/staging apply tfplan",
        desc="Apply the saved plan",
        reason="never apply from a laptop. we only plan locally, apply goes through Atlantis on the PR",
        hint=True,
    )
    s.say(
        "Got it — no applies from here; Atlantis applies from the PR. The plan above is what it "
        "should show."
    )
    s.read("infra/envs/prod/rds.tf", MAIN.replace("helios-staging", "helios-prod")
           .replace("multi_az               = false", "multi_az               = true"))
    s.say("Prod uses the same module (multi-AZ, also without Performance Insights). To keep the "
          "environments consistent I could mirror the Performance Insights setting there:")
    s.edit_rejected("infra/envs/prod/rds.tf", '''  apply_immediately      = false
''', '''  apply_immediately      = false

  performance_insights_enabled          = true
  performance_insights_retention_period = 7
''')
    s.interrupt(for_tool=True)
    s.user("no, prod is out of scope. any prod change needs a CAB ticket first, don't touch "
           "infra/envs/prod in this branch", wait=18)
    s.say("Understood, prod stays untouched. Committing just the staging change:")
    s.bash("git add infra/envs/staging/rds.tf && git commit -m \"staging: rds db.t3.large + performance insights\" && git push -u origin staging-rds-large 2>&1 | tail -4", """\
[staging-rds-large 4be0f17] staging: rds db.t3.large + performance insights
 1 file changed, 4 insertions(+), 1 deletion(-)
remote:
remote: Create a pull request for 'staging-rds-large' on GitHub by visiting:
remote:      https://github.com/helios-eng/infra-live/pull/new/staging-rds-large""", desc="Commit and push")
    s.say(
        "Pushed `staging-rds-large`. Summary:\n\n"
        "- `infra/envs/staging/rds.tf`: `db.t3.large`, Performance Insights on (7-day retention, "
        "the free tier). `apply_immediately` stays `false`, so the resize reboot happens in the "
        "Sunday 03:00–04:00 window, not during QA hours.\n"
        "- Local plan: 1 to change, 0 to add/destroy. Nothing applied.\n"
        "- Your shell exports expired static AWS keys that override the SSO profile; I worked "
        "around it with `env -u … AWS_PROFILE=staging`. Worth removing them (and rotating the "
        "key that was printed).\n\n"
        "Next: open the PR from the link above so Atlantis plans and applies it. Open question "
        "for whoever reviews: is 7 days of Performance Insights history enough, or do you want "
        "the paid long-term retention?"
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "terraform apply rejected with a reason (= rule)",
        "Edit rejected and interrupted, then a rule (CAB for prod)",
        "ExpiredToken from stale AWS_* env vars, fixed with `env -u … AWS_PROFILE=…`",
        "AWS access key, secret key and session token in tool output",
        "decision with its why (apply_immediately)",
        "terraform fmt failing (exit 3) then passing",
        "todo and open question",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["apply"], ["Atlantis", "laptop"]],
         "note": "Never terraform apply from a laptop: plan locally only, Atlantis applies from the PR."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["CAB"], ["prod"]],
         "note": "Any prod change needs a CAB ticket first; infra/envs/prod is out of scope here."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "failed_attempt"],
         "match": [["ExpiredToken", "expired"], ["AWS_ACCESS_KEY_ID", "env -u", "AWS_PROFILE"]],
         "note": "terraform plan failed with ExpiredToken: stale AWS_* keys exported in the shell "
                 "override the staging SSO profile; run with env -u … AWS_PROFILE=staging."},
        {"id": "d1", "type": "decision",
         "match": [["apply_immediately", "maintenance window"], ["reboot", "downtime", "QA"]],
         "note": "apply_immediately stays false so the resize reboot happens in the Sunday "
                 "03:00 maintenance window, not while QA uses staging."},
        {"id": "t1", "type": "todo",
         "match": [["PR", "pull request"], ["Atlantis"]],
         "note": "Open the PR for staging-rds-large so Atlantis plans and applies it."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["retention"], ["7 days", "7-day", "Performance Insights"]],
         "note": "Is 7 days of Performance Insights retention enough, or is paid long-term "
                 "retention wanted?"},
        {"id": "t2", "type": "todo", "required": False,
         "match": [["rotat"], ["key"]],
         "note": "Remove the stale AWS exports from the shell and rotate the printed key."},
        {"id": "v1", "type": "verified_command",
         "command": "env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN "
                    "AWS_PROFILE=staging terraform -chdir=infra/envs/staging plan -out=tfplan"},
        {"id": "v2", "type": "verified_command",
         "command": "terraform fmt infra/envs/staging/rds.tf && terraform fmt -check -recursive "
                    "infra && terraform -chdir=infra/envs/staging validate"},
    ],
    "secrets": [AKID, SECRET, SESSION_TOKEN],
    "forbidden": [["doesn't want to proceed"], ["Request interrupted"]],
}
