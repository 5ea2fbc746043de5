# ruff: noqa: E501  (verbatim transcript text)
"""Interrupted before anything happened, then abandoned: nothing to remember (English)."""

from make_sessions import Session


def build() -> Session:
    s = Session("interrupted-early-en", cwd="/home/ines/src/checkout-service", branch="release/2026.03",
                start="2026-03-05T17:41:03.118Z", version="2.1.50")
    s.user("bump the node version in the Dockerfile to 22 and fix whatever breaks", wait=4)
    s.think("Look at the Dockerfile and .nvmrc first, then package.json engines.")
    s.say("I'll start by looking at the Dockerfile and the Node version pins.")
    s.call(s.rejected_call("Read", {"file_path": "/home/ines/src/checkout-service/Dockerfile"}),
           s.rejected_call("Glob", {"pattern": "**/.nvmrc"}))
    s.interrupt(for_tool=True)
    s.user("sorry, wrong terminal", wait=9)
    s.say("No problem — nothing was read or changed.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "empty: two tool calls rejected, '[Request interrupted by user for tool use]', then 'wrong terminal'",
    ],
    "language": "en",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
