"""Todos and open questions left at the end of a session (`todo` / `open_question`).

The last todo list's and task list's open items, what the final wrap-ups name as
remaining (unless the person's reply settled it), questions the answer left open or the
user handed to someone else, and work the user put off. Items a todo list holds are not
repeated from the wrap-up.
"""

from __future__ import annotations

import re
from typing import Any

from . import lexicon, shell
from .extractor import BOOKKEEPING_TOOLS, Extractor, Turn, is_prompt
from .finding import Finding
from .reading import (
    BRIEF_REPLY_CHARS,
    QUESTION_WORD_RE,
    first_sentences,
    normalized,
    open_items,
    rule_type,
    shorten,
    text_weight,
)
from .transcript import ToolCall

MAX_TODOS = 10


def todos(x: Extractor, turns: list[Turn]) -> None:
    # (kind, text, at, anchor): a wrap-up's items are keyed by their place in it, so
    # one told more fully later (who will answer it) updates its memory
    items: list[tuple[str, str, str | None, int]] = []
    last_list = None
    for call in x.session.tools:
        if call.name == "TodoWrite" and isinstance(call.input.get("todos"), list):
            last_list = call
    if last_list is not None:
        for todo in last_list.input["todos"]:
            if isinstance(todo, dict) and isinstance(todo.get("content"), str) and (
                todo.get("status") != "completed"
            ):
                items.append(("todo", todo["content"], last_list.at, -1))
    items += [("todo", subject, at, -1) for subject, at in open_tasks(x.session.tools)]
    items += [("todo", text, at, -1) for text, at in filed_issues(x.session.tools)]
    listed = [set(re.findall(r"\w+", text.lower())) for _, text, _, _ in items]
    # A question the user asked that the answer left open: the question and the answer.
    answered: set[int] = set()
    for index, turn in enumerate(turns):
        prompt = turn.opener
        if prompt is None or prompt.kind != "prompt" or turn.edited:
            continue
        answer = next((e for e in reversed(turn.events) if e.kind == "text"), None)
        asked = [s for s in lexicon.sentences(prompt.prose)
                 if s.endswith(("?", "？")) or lexicon.WONDER_RE.search(s)]
        if asked and answer is not None and (
            lexicon.UNDECIDED_RE.search(answer.text) or lexicon.UNCERTAIN_RE.search(answer.text)
        ):
            gist = first_sentences(answer.text, 400)
            items.append(("open_question", f"{shorten(' '.join(asked), 200)} — {gist}",
                          answer.at, -1))
            answered.add(index)
    # What the last working turn left open, and what any talk after it added.
    last_work = max((i for i, t in enumerate(turns) if t.worked), default=0)
    for index, turn in enumerate(turns[last_work:], last_work):
        closing = turn.closing()
        # what the assistant asked of the person ("Which approach do you prefer?"), or
        # left to them, is settled by their next message when one follows
        replied = index + 1 < len(turns) and is_prompt(turns[index + 1].opener)
        # a short reply ("yes please") answers every question the wrap-up ended on,
        # unless it hands them on or leaves them open ("DFU 问老周", "not sure yet")
        reply = turns[index + 1].opener.prose if replied else ""
        briefly = replied and text_weight(reply) < BRIEF_REPLY_CHARS and not (
            lexicon.HANDOFF_RE.search(reply) or lexicon.UNCERTAIN_RE.search(reply)
            or lexicon.UNDECIDED_RE.search(reply))
        if closing is not None:  # an answered question is already one open question
            items += [(kind, text, closing.at, closing.position * 64 + number)
                      for number, (kind, text) in enumerate(open_items(closing.text)[:64])
                      if not (index in answered and kind == "open_question")
                      and not (replied and lexicon.TO_USER_RE.search(text))
                      and not (briefly and text.endswith(("?", "？")))]
    # A question the user hands to someone at the end ("ask Priya", "faudra demander à
    # Claire si …"): open until they answer, with the question it follows when there is one.
    handed: set[str] = set()  # each question handed on once
    for turn in turns[last_work:]:
        prompt = turn.opener
        if prompt is None or prompt.kind != "prompt":
            continue
        said = lexicon.sentences(prompt.prose)
        for number, sentence in enumerate(said):
            if not lexicon.HANDOFF_RE.search(sentence) or rule_type(sentence, long_prompt=(
                len(prompt.text) > 600)) is not None:
                continue
            asked = [s for s in said[max(0, number - 2):number]
                     if s.endswith(("?", "？")) and s not in handed]
            if not asked and lexicon.DEFER_RE.search(sentence) and not (
                QUESTION_WORD_RE.search(sentence) or lexicon.UNCERTAIN_RE.search(sentence)
            ):
                # "slither in CI is overdue, I'll ask Lena after the audit": work put
                # off, with who it waits on
                items.append(("todo", sentence, prompt.at, -1))
                continue
            ours = [i for i, item in enumerate(items) if item[0] == "open_question"]
            if not asked and ours and not lexicon.PROBLEM_RE.search(sentence) and (
                text_weight(sentence) < 80
            ):  # "good q, ask Priya": the question the wrap-up asked, and who answers it
                kind, question, at, anchor = items[ours[-1]]
                items[ours[-1]] = (kind, f"{question} — {sentence}", at, anchor)
                continue
            if not asked and number and (_POINTS_BACK_RE.search(sentence) or (
                lexicon.UNCERTAIN_RE.search(said[number - 1]))):
                # "not sure that's still the case, ask Claire", "I don't know which is
                # right, shortening or narrowing. I'll ask Sasha": the case is the
                # sentence before
                asked = [said[number - 1]]
            # the question through the hand-off, with what lies between ("si es jenkins no
            # va a poder escribir el lockfile… le pregunto a Memo")
            start = said.index(asked[-1], max(0, number - 2)) if asked else number
            items.append(("open_question", " ".join(said[start:number + 1]), prompt.at, -1))
            handed.update(asked[-1:])
    prompts = [t.opener for t in turns if t.opener and t.opener.kind == "prompt"]
    if prompts:  # the user's last words naming work for later, or not done yet
        last = prompts[-1]
        # ... or what they do not know yet ("lo que no sé es si irán en /en/ o en un
        # subdominio, eso está sin decidir")
        items += [("open_question", s, last.at, -1) for s in lexicon.sentences(last.prose)
                  if (lexicon.UNCERTAIN_RE.search(s) or lexicon.UNDECIDED_RE.search(s))
                  and text_weight(s) >= 30 and rule_type(s) is None
                  and not lexicon.HANDOFF_RE.search(s)
                  and not any(s in item[1] for item in items)]  # handed on already
        # "now we have a cache, so we should launch the cached page": in a request the
        # turn then carried out, the work asked for, not work for later
        worked_on = any(t.opener is last and t.edited for t in turns)
        later = [_put_off(s, lexicon.LATER_WORK_RE) for s in lexicon.sentences(last.prose)
                 if (lexicon.LATER_WORK_RE.search(s) and not worked_on
                     or lexicon.USER_NOT_YET_RE.search(s) or lexicon.TELL_SOMEONE_RE.search(s))
                 and len(s) >= 20 and not s.endswith(("?", "？"))]
        items += [("todo", s, last.at, -1) for s in later if rule_type(s) is None]
    for turn in turns:
        prompt = turn.opener
        if prompt is None or prompt.kind != "prompt":
            continue
        items += [("todo", _put_off(s), prompt.at, -1) for s in lexicon.sentences(prompt.prose)
                  if lexicon.DEFER_RE.search(s) and text_weight(s) >= 15
                  and not any(s in item[1] for item in items)]
    stopped = stopped_last(x)
    if stopped is not None:
        items.append(("todo", *stopped, -1))
    cut = cut_short(x, turns)
    if cut is not None:
        items.append(("todo", *cut, -1))
    unsolved = left_diagnosed(x, turns)
    if unsolved is not None:
        items.append(("todo", *unsolved, -1))
    seen: set[str] = set()
    for kind, text, at, anchor in items[:MAX_TODOS]:
        words = set(re.findall(r"\w+", text.lower()))
        if normalized(text) in seen or len(text) < 8 or anchor >= 0 and len(words) >= 3 and (
            any(len(words & item) >= 0.8 * len(words) for item in listed)
        ):  # a todo list's item, restated by the wrap-up ("⚠️ Set up the schedule")
            continue
        seen.add(normalized(text))
        x.add(Finding(kind, shorten(text, 300), "open", at=at, importance=0.55,
                      anchor=anchor))


def stopped_last(x: Extractor) -> tuple[str, str | None] | None:
    """The run the person stopped as the session's last act, with nothing said after it
    ("Run load test (10 RPS for 30 seconds)", rejected, then the session ends): work the
    session meant to do and did not. Not an edit (a change turned down decides nothing),
    and not when the person said why (their words are read as a rule or a correction)."""
    said = [e for e in x.events if e.kind in ("tool", "text", "prompt")]
    call = said[-1].tool if said else None
    if call is None or call.name not in ("Bash", "Task", "Agent") or call.feedback or not (
        call.rejected or call.interrupted
    ):
        return None
    what = call.input.get("description") or call.input.get("prompt") or call.command
    if not isinstance(what, str) or not what.strip():
        return None
    ran = f": `{shorten(call.command, 160)}`" if call.command and what != call.command else ""
    text = f"Not done: {shorten(what.strip(), 160)} (stopped before it finished{ran})"
    if x.opening:  # what it was for, so that the todo is found by the task's words
        text += f" — in the task: {shorten(x.opening, 140)}"
    return text, call.at


def cut_short(x: Extractor, turns: list[Turn]) -> tuple[str, str | None] | None:
    """The session cut off inside its last request: the agent had started on it (a call
    whose result never came) and had said nothing yet ("do a final push of logs, update
    the repo description, then go public", one run begun). What was asked is still to
    do. Not the session's only request (a cut session that did nothing else is empty),
    not a question, not a short reply (whose work is what it answered)."""
    turn = turns[-1] if turns else None
    prompt = turn.opener if turn is not None else None
    if prompt is None or prompt.kind != "prompt" or prompt.text is x.opening:
        return None
    said = [e for e in turn.events if e.kind in ("text", "tool", "interrupt")]
    if not said or any(e.kind != "tool" for e in said):
        return None
    call = said[-1].tool
    asked = " ".join(prompt.prose.split())
    if call is None or call.failed is not None or call.rejected or call.interrupted or (
        text_weight(asked) < BRIEF_REPLY_CHARS or asked.endswith(("?", "？"))
    ):
        return None
    return f"Not done when the session ended: {shorten(asked, 240)}", prompt.at


def left_diagnosed(x: Extractor, turns: list[Turn]) -> tuple[str, str | None] | None:
    """The session ending on a cause put forward and not acted on ("## Hypothesis: the
    issues stem from the app using tweetnacl.secretbox …", then nothing): the problem is
    still there, and the hypothesis is where the next session starts."""
    if not turns or turns[-1].worked or turns[-1].edited:
        return None
    final = next((e for e in reversed(x.events) if e.kind in ("text", "tool", "prompt")
                  and not (e.tool and e.tool.name in BOOKKEEPING_TOOLS)), None)
    if final is None or final.kind != "text" or not lexicon.HYPOTHESIS_RE.search(final.text[:600]):
        return None
    lines = [line for line in final.text.splitlines() if line.strip()]
    while len(lines) > 1 and lines[0].rstrip().endswith((":", "：")):
        lines.pop(0)  # "Based on the code, here is my hypothesis:" announces what follows
    plain = " ".join(re.sub(r"[#*_`]+", "", " ".join(lines)).split())
    return f"Unsolved at the end: {shorten(plain, 400)}", final.at


def _put_off(sentence: str, marker: re.Pattern[str] = lexicon.DEFER_RE) -> str:
    """The work a sentence puts off; only the clause that does, when the sentence also
    states a rule ("cleanup I'll hang on the housekeeping worker tomorrow, NOT a new cron":
    the rule is kept whole as a constraint, the todo is the first clause)."""
    if rule_type(sentence) is None:
        return sentence
    clauses = [c.strip() for c in re.split(r"[,;:]\s+|\s+[—–]\s+", sentence)]
    return next((c for c in clauses if marker.search(c) and text_weight(c) >= 15
                 and rule_type(c) is None), sentence)


# A sentence about "that", "c'est", "das": what it is about was said just before.
_POINTS_BACK_RE = re.compile(
    r"\b(that|this|it|c'est|ça|cela|das|dies|eso|esto|isso|isto|questo)\b|это|так ли|"
    r"那|这|それ|これ", re.IGNORECASE)


# Issue trackers driven from the shell: the words that file an issue, and that close one.
_FILE_ISSUE = (["bd", "create"], ["bd", "new"], ["gh", "issue", "create"],
               ["glab", "issue", "create"], ["jira", "issue", "create"],
               ["linear", "issue", "create"])
_CLOSE_ISSUE = (["bd", "close"], ["gh", "issue", "close"], ["glab", "issue", "close"])
# What a tracker answers with the new issue's id: beads' "Created issue: spotter-fum.5",
# gh's and glab's URL ".../issues/123".
_FILED_ID_RE = re.compile(r"Created issue:\s*(?P<id>[\w.-]+)|/issues/(?P<number>\d+)\b")


def _option(words: list[str], *names: str) -> str:
    for index, word in enumerate(words):
        for name in names:
            if word.startswith(name + "="):
                return word[len(name) + 1:]
            if word == name and index + 1 < len(words):
                return words[index + 1]
    return ""


def filed_issues(calls: list[ToolCall]) -> list[tuple[str, str | None]]:
    """(text, time) of each issue the session filed in a tracker (`bd create`, `gh issue
    create`, a tool server's create_issue) and did not close again: work it named for
    later, in the words it was filed with."""
    filed: list[tuple[str, str, str | None]] = []  # (id, text, time)
    closed: set[str] = set()
    for call in calls:
        if call.failed is not False:
            continue
        if call.name.startswith("mcp__") and re.search(r"create_?(issue|ticket)$",
                                                       call.name, re.IGNORECASE):
            title = call.input.get("title") or call.input.get("summary")
            body = call.input.get("description") or call.input.get("body") or ""
            if isinstance(title, str) and title.strip():
                filed.append(_filed(call, title, body))
            continue
        if call.name != "Bash" or not call.command:
            continue
        for words in shell.segments(call.command):
            if any(words[:len(verb)] == verb for verb in _CLOSE_ISSUE):
                closed.update(w.lstrip("#") for w in words[2:] if not w.startswith("-"))
            if not any(words[:len(verb)] == verb for verb in _FILE_ISSUE):
                continue
            title = _option(words, "--title", "-t")
            if not title:
                continue
            body = _option(words, "--description", "--body", "-b", "-d")
            filed.append(_filed(call, title, body))
    return [(text, at) for issue, text, at in filed if issue.lstrip("#") not in closed]


def _filed(call: ToolCall, title: str, body: Any) -> tuple[str, str, str | None]:
    """(id, text, time) of the issue a call filed: its id as the tracker answered it."""
    found = _FILED_ID_RE.search(call.output)
    issue = (found["id"] or f"#{found['number']}") if found else ""
    body = re.sub(r"^#+\s*\w+\s*\n+", "", body.strip()) if isinstance(body, str) else ""
    gist = first_sentences(body, 160) if body else ""  # past a "## Problem" heading
    label = f"Open issue {issue}" if issue else "Open issue"
    return issue, f"{label}: {title.strip()}" + (f" — {gist}" if gist else ""), call.at


_TASK_ID_RE = re.compile(r"#(\d+)")


def open_tasks(calls: list[ToolCall]) -> list[tuple[str, str | None]]:
    """(subject, time) of the tasks Claude Code's task list still had open at the end: the
    TaskCreate / TaskUpdate tools that replaced TodoWrite (ids are counters, reported in
    the result: "Task #3 created successfully: …")."""
    tasks: dict[str, dict[str, Any]] = {}
    for call in calls:
        if call.failed is not False:
            continue
        if call.name == "TaskCreate" and isinstance(call.input.get("subject"), str):
            task = call.result.get("task") if isinstance(call.result, dict) else None
            found = _TASK_ID_RE.search(call.output)
            task_id = str(task.get("id")) if isinstance(task, dict) and task.get("id") else (
                found.group(1) if found else str(len(tasks) + 1))
            tasks[task_id] = {"subject": call.input["subject"], "status": "pending",
                              "at": call.at}
        elif call.name == "TaskUpdate":
            task_id = call.input.get("taskId") or call.input.get("task_id")
            task = tasks.get(str(task_id))
            if task is None:
                continue
            if isinstance(call.input.get("status"), str):
                task["status"] = call.input["status"]
            if isinstance(call.input.get("subject"), str):
                task["subject"] = call.input["subject"]
    return [(t["subject"], t["at"]) for t in tasks.values()
            if t["status"] not in ("completed", "deleted")]
