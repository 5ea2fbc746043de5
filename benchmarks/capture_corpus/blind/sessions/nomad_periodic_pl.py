# ruff: noqa: E501  (verbatim command output and file contents)
"""Nightly report moved from a VM crontab to a Nomad periodic batch job; the user changes the time mid-session (Polish)."""

from make_sessions import Session

CRONTAB = '''# m h dom mon dow  command
15 2 * * * /opt/raporty/bin/raport-nocny --out s3://fin-raporty/nocne/ >> /var/log/raport-nocny.log 2>&1
'''

EXISTING_JOB = '''job "eksport-faktur" {
  datacenters = ["waw1"]
  type        = "batch"

  periodic {
    crons            = ["0 5 * * *"]
    time_zone        = "Europe/Warsaw"
    prohibit_overlap = true
  }

  group "eksport" {
    task "eksport" {
      driver = "docker"
      config {
        image = "registry.internal/fin/eksport-faktur:1.14.2"
      }
      template {
        data        = <<EOT
{{ with secret "kv/data/fin/eksport" }}DB_URL={{ .Data.data.db_url }}{{ end }}
EOT
        destination = "secrets/env"
        env         = true
      }
      vault { policies = ["fin-eksport"] }
      resources {
        cpu    = 500
        memory = 512
      }
    }
  }
}
'''

JOB_V1 = '''job "raport-nocny" {
  datacenters = ["waw1"]
  type        = "batch"
  prohibit_overlap = true

  periodic {
    crons     = ["15 2 * * *"]
    time_zone = "Europe/Warsaw"
  }

  group "raport" {
    task "raport" {
      driver = "docker"
      config {
        image = "registry.internal/fin/raport-nocny:2.3.0"
        args  = ["--out", "s3://fin-raporty/nocne/"]
      }
      template {
        data        = <<EOT
{{ with secret "kv/data/fin/raport" }}DB_URL={{ .Data.data.db_url }}
AWS_ACCESS_KEY_ID={{ .Data.data.s3_key }}
AWS_SECRET_ACCESS_KEY={{ .Data.data.s3_secret }}{{ end }}
EOT
        destination = "secrets/env"
        env         = true
      }
      vault { policies = ["fin-raport"] }
      resources {
        cpu    = 1000
        memory = 1024
      }
    }
  }
}
'''


def build() -> Session:
    s = Session("nomad-periodic-pl", cwd="/home/tomasz/infra/nomad-jobs", branch="raport-nocny-do-nomada",
                start="2026-02-17T10:12:09.554Z", version="2.1.40", slug="periodic-batch-kestrel")
    s.user(
        "hej, raport nocny dalej chodzi z crontaba na reporting-01. za każdym razem jak ktoś dorzuca "
        "crona na jakiejś maszynie to potem żałujemy (nikt nie wie że istnieje, maszyna pada i cisza). "
        "przenieś to na nomada jako periodic, tak jak eksport-faktur. crontab wklejam:\n\n" + CRONTAB,
        wait=5,
    )
    s.call(s.read_call("jobs/eksport-faktur.nomad.hcl", EXISTING_JOB))
    s.glob("jobs/*.nomad.hcl", ["jobs/eksport-faktur.nomad.hcl", "jobs/sync-kursow.nomad.hcl", "jobs/api-fin.nomad.hcl"])
    s.say(
        "Wzoruję się na `eksport-faktur`: batch + `periodic`, `prohibit_overlap`, `time_zone = "
        "\"Europe/Warsaw\"` (crontab na reporting-01 liczy w czasie lokalnym, więc bez strefy po "
        "zmianie czasu raport przesunąłby się o godzinę), sekrety z Vaulta przez `template`."
    )
    s.write("jobs/raport-nocny.nomad.hcl", JOB_V1)
    s.bash("nomad job plan jobs/raport-nocny.nomad.hcl", '''Error during plan: Put "http://127.0.0.1:4646/v1/job/raport-nocny/plan?region=global": dial tcp 127.0.0.1:4646: connect: connection refused''', code=255, desc="Plan")
    s.bash("nomad job validate jobs/raport-nocny.nomad.hcl", '''Error getting job struct: Error parsing job file from jobs/raport-nocny.nomad.hcl:
raport-nocny.nomad.hcl:4,3-19: Unsupported argument; An argument named "prohibit_overlap" is not expected here.''', code=1, desc="Walidacja joba")
    s.say("`prohibit_overlap` musi być w bloku `periodic`, nie na poziomie joba. Przenoszę.")
    s.edit("jobs/raport-nocny.nomad.hcl", '''  type        = "batch"
  prohibit_overlap = true
''', '''  type        = "batch"
''')
    s.edit("jobs/raport-nocny.nomad.hcl", '''    crons     = ["15 2 * * *"]
    time_zone = "Europe/Warsaw"''', '''    crons            = ["15 2 * * *"]
    time_zone        = "Europe/Warsaw"
    prohibit_overlap = true''')
    s.bash("nomad job validate jobs/raport-nocny.nomad.hcl", '''Job validation successful''', desc="Walidacja joba")
    s.say("Walidacja przechodzi. Sprawdzę jeszcze plan na stagingu, a potem mogę puścić na prod:")
    s.bash("NOMAD_ADDR=https://nomad.staging.internal:4646 nomad job plan jobs/raport-nocny.nomad.hcl 2>&1 | tail -12", '''+ Job: "raport-nocny"
+ Task Group: "raport" (1 create)
  + Task: "raport" (forces create)

Scheduler dry-run:
- All tasks successfully allocated.

- Rerun with -verbose to see the next launch time
Job Modify Index: 0''', desc="Plan na stagingu", secs=4)
    s.bash_rejected("NOMAD_ADDR=https://nomad.waw1.internal:4646 nomad job run jobs/raport-nocny.nomad.hcl",
                    desc="Deploy na prod",
                    reason="na proda nic ręcznie, wszystko idzie przez pipeline po merge'u do main. poza tym jeszcze nie wyłączyłem crona, poszłyby dwa raporty")
    s.say("Jasne, nie puszczam. Zostawiam deploy pipeline'owi po merge'u.")
    s.turn_end()
    s.user(
        "aha i jednak nie 2:15. o 2 startuje backup bazy i raport się z nim gryzie, dlatego był tak "
        "wolny. daj 4:30. eksport-faktur jest o 5 ale bierze inne tabele, to się nie pogryzie",
        wait=60,
    )
    s.edit("jobs/raport-nocny.nomad.hcl", '''    crons            = ["15 2 * * *"]''', '''    # 4:30, nie 2:15: o 2:00 startuje backup bazy i raport się z nim gryzł
    crons            = ["30 4 * * *"]''')
    s.bash("nomad fmt -check jobs/ && nomad job validate jobs/raport-nocny.nomad.hcl", '''Job validation successful''', desc="fmt + walidacja")
    s.bash("make lint-jobs 2>&1 | tail -5", '''==> nomad fmt -check jobs/
==> nomad job validate (4 jobs)
Job validation successful
Job validation successful
Job validation successful
Job validation successful
==> conftest test jobs/ -p policy/
8 tests, 7 passed, 0 warnings, 1 failure, 0 exceptions''', desc="Lint wszystkich jobów", secs=8)
    s.bash("conftest test jobs/raport-nocny.nomad.hcl -p policy/", '''FAIL - jobs/raport-nocny.nomad.hcl - main - job "raport-nocny": periodic jobs must set meta.owner (who gets paged)

2 tests, 1 passed, 0 warnings, 1 failure, 0 exceptions''', code=1, desc="Który test polityki")
    s.say(
        "Polityka w `policy/` wymaga `meta.owner` dla jobów periodic (kogo budzić); "
        "`eksport-faktur` jest na liście wyjątków w `policy/exceptions.rego`. Nie chcę zgadywać: "
        "kto jest właścicielem raportu nocnego?"
    )
    s.turn_end()
    s.user("fin-platform", wait=25)
    s.edit("jobs/raport-nocny.nomad.hcl", '''  type        = "batch"
''', '''  type        = "batch"

  meta {
    owner = "fin-platform"
  }
''')
    s.bash("make lint-jobs 2>&1 | tail -2", '''==> conftest test jobs/ -p policy/
8 tests, 8 passed, 0 warnings, 0 failures, 0 exceptions''', desc="Lint wszystkich jobów", secs=8)
    s.say(
        "Gotowe, `make lint-jobs` zielony:\n\n"
        "- `jobs/raport-nocny.nomad.hcl`: batch + periodic o 4:30 `Europe/Warsaw` (nie 2:15 — "
        "kolizja z backupem bazy), `prohibit_overlap` w bloku `periodic`, sekrety z Vaulta "
        "(`kv/data/fin/raport`, polityka `fin-raport`), `meta.owner = \"fin-platform\"`.\n"
        "- Plan na stagingu OK; na prod poleci pipeline po merge'u.\n\n"
        "Do zrobienia po Twojej stronie: polityka Vault `fin-raport` i sekret `kv/data/fin/raport` "
        "chyba jeszcze nie istnieją (na stagingu plan tego nie sprawdza), no i crontab na "
        "reporting-01 trzeba zdjąć w tym samym momencie co deploy. Nie wiem też, czy raport ma się "
        "powtarzać po błędzie — cron tego nie robił, Nomad domyślnie robi `restart` 3 razy w batchu."
    )
    s.turn_end()
    s.user("vault zrobię sam po obiedzie. crona zdejmę jak pierwszy raz przejdzie z nomada. co do retry zapytam Kasię z księgowości czy dwa raporty tego samego dnia to problem", wait=90)
    s.say("Ok. Nic więcej nie ruszam.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "HashiCorp Nomad periodic batch job (Vault template, conftest policy), Polish",
        "a rule stated as a complaint (crons on machines nobody knows about)",
        "`nomad job plan` without NOMAD_ADDR failing, silently replaced by offline `validate`",
        "prohibit_overlap at the wrong level (HCL error), fixed",
        "prod `nomad job run` rejected with a rule (only the pipeline after merge)",
        "the user changing the schedule mid-session with its reason (DB backup at 2:00)",
        "a one-word answer that decides (owner fin-platform); conftest failure then pass behind `| tail`",
        "todos the user takes (Vault, remove the crontab) and a question for a colleague (Kasia)",
    ],
    "language": "pl",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["crona", "crontab", "cron"], ["żałujemy", "nomad"]],
         "note": "Żadnych cronów na maszynach: zadania okresowe idą do Nomada jako periodic (nikt nie wie o cronach, maszyna pada i cisza)."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["pipeline"], ["prod", "ręcznie"]],
         "note": "Na prod nic ręcznie (`nomad job run`): deploy idzie przez pipeline po merge'u do main."},
        {"id": "d1", "type": "decision",
         "match": [["4:30", "30 4"], ["backup"]],
         "note": "Raport nocny startuje o 4:30, nie 2:15, bo o 2:00 startuje backup bazy i raport się z nim gryzł."},
        {"id": "d2", "type": "decision", "types": ["decision", "project_fact"],
         "match": [["Europe/Warsaw", "time_zone"], ["zmianie czasu", "lokalnym"]],
         "note": "Job ma time_zone Europe/Warsaw, bo crontab liczył w czasie lokalnym i po zmianie czasu raport przesunąłby się o godzinę."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "failed_attempt"],
         "match": [["prohibit_overlap"], ["periodic"]],
         "note": "prohibit_overlap musi być w bloku periodic; na poziomie joba validate zwraca Unsupported argument."},
        {"id": "x1", "type": "project_fact", "types": ["project_fact", "constraint", "decision"],
         "match": [["meta.owner", "owner"], ["fin-platform"]],
         "note": "Polityka conftest wymaga meta.owner w jobach periodic; właścicielem raportu nocnego jest fin-platform."},
        {"id": "t1", "type": "todo",
         "match": [["vault"], ["po obiedzie", "fin-raport"]],
         "note": "Tomasz sam zakłada politykę Vault fin-raport i sekret kv/data/fin/raport po obiedzie."},
        {"id": "t2", "type": "todo",
         "match": [["crona", "crontab"], ["pierwszy raz", "reporting-01"]],
         "note": "Crontab na reporting-01 zostanie zdjęty, gdy raport pierwszy raz przejdzie z Nomada."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["Kasi"], ["dwa raporty", "retry", "restart"]],
         "note": "Czy raport może się powtórzyć po błędzie (dwa raporty tego samego dnia)? Tomasz pyta Kasię z księgowości."},
        {"id": "v1", "type": "verified_command", "command": "make lint-jobs"},
        {"id": "v2", "type": "verified_command", "command": "nomad fmt -check jobs/ && nomad job validate jobs/raport-nocny.nomad.hcl"},
        {"id": "v3", "type": "verified_command", "required": False, "command": "nomad job validate jobs/raport-nocny.nomad.hcl"},
        {"id": "v4", "type": "verified_command", "required": False,
         "command": "NOMAD_ADDR=https://nomad.staging.internal:4646 nomad job plan jobs/raport-nocny.nomad.hcl"},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"]],
}
