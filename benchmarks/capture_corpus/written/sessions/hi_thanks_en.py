# ruff: noqa: E501  (verbatim transcript text)
"""Greeting and thanks only: nothing to remember (English)."""

from make_sessions import Session


def build() -> Session:
    s = Session("hi-thanks-en", cwd="/Users/noah/code/atlas-web", branch="main",
                start="2026-03-03T08:58:12.660Z", version="2.1.47", model="claude-sonnet-4-6")
    s.hook_progress("SessionStart", "SessionStart:startup", "engram hook session-start")
    s.local_command("model", "Set model to \u001b[1mSonnet 4.6\u001b[22m", wait=2)
    s.user("hi", wait=6)
    s.say("Hi! What are you working on today?")
    s.turn_end()
    s.user("nothing yet, just checking the new setup works after the laptop migration", wait=25)
    s.say("Everything looks fine from here — I can see the `atlas-web` repo on `main`. Just let "
          "me know when you want to start on something.")
    s.turn_end()
    s.user("great, thanks!", wait=12)
    s.say("You're welcome!")
    s.turn_end()
    s.local_command("exit", "Goodbye!", wait=5)
    return s


GOLD = {
    "covers": [
        "empty: hi / thanks only",
        "SessionStart hook progress",
        "/model and /exit local commands",
    ],
    "language": "en",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
