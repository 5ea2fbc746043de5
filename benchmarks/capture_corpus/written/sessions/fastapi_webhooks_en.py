# ruff: noqa: E501  (verbatim command output and file contents)
"""FastAPI webhook sender: duplicate deliveries on slow merchant endpoints (English)."""

from make_sessions import Session

TOKEN = "rl_test_9fK2mQ7xVb4TcW8pZ3nL6yHdRw1E"

SENDER = '''"""Delivers one event to one merchant endpoint."""

import logging

import httpx

from app.delivery.models import Delivery, Event
from app.delivery.signing import sign

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
TIMEOUT = httpx.Timeout(2.0, connect=1.0)


async def send(client: httpx.AsyncClient, event: Event, url: str, secret: str) -> Delivery:
    body = event.model_dump_json()
    last_error: Exception | None = None
    for attempt in range(1, MAX_ATTEMPTS + 1):
        headers = {
            "Content-Type": "application/json",
            "Relay-Signature": sign(secret, body),
        }
        try:
            resp = await client.post(url, content=body, headers=headers, timeout=TIMEOUT)
        except httpx.TimeoutException as exc:
            log.warning("delivery %s attempt %d timed out", event.id, attempt)
            last_error = exc
            continue
        if resp.status_code < 500:
            return Delivery(event_id=event.id, status=resp.status_code, attempts=attempt)
        last_error = httpx.HTTPStatusError("server error", request=resp.request, response=resp)
    return Delivery(event_id=event.id, status=None, attempts=MAX_ATTEMPTS, error=str(last_error))
'''

BATCH = '''"""Fans one event out to every subscribed endpoint."""

import asyncio

import httpx

from app.delivery.models import Delivery, Event
from app.delivery.sender import send
from app.subscriptions import endpoints_for


async def deliver_all(client: httpx.AsyncClient, event: Event) -> list[Delivery]:
    jobs = [send(client, event, ep.url, ep.secret) for ep in await endpoints_for(event)]
    return await asyncio.gather(*jobs)
'''

TEST_SENDER = '''import httpx
import pytest
import respx

from app.delivery.sender import send
from tests.factories import make_event

URL = "https://merchant.example/hooks"


@pytest.mark.asyncio
async def test_delivers_once_on_200():
    with respx.mock:
        route = respx.post(URL).respond(200)
        async with httpx.AsyncClient() as client:
            result = await send(client, make_event(), URL, "whsec_test")
    assert route.call_count == 1
    assert result.status == 200


@pytest.mark.asyncio
async def test_gives_up_after_three_5xx():
    with respx.mock:
        route = respx.post(URL).respond(503)
        async with httpx.AsyncClient() as client:
            result = await send(client, make_event(), URL, "whsec_test")
    assert route.call_count == 3
    assert result.status is None
'''

NEW_TEST = '''

@pytest.mark.asyncio
async def test_retry_after_timeout_reuses_idempotency_key():
    seen = []

    def slow_then_ok(request):
        seen.append(request.headers.get("relay-idempotency-key"))
        if len(seen) == 1:
            raise httpx.ReadTimeout("merchant too slow", request=request)
        return httpx.Response(200)

    with respx.mock:
        respx.post(URL).mock(side_effect=slow_then_ok)
        async with httpx.AsyncClient() as client:
            event = make_event()
            result = await send(client, event, URL, "whsec_test")
    assert result.attempts == 2
    assert seen[0] is not None
    assert seen[0] == seen[1] == f"{event.id}"
'''


def build() -> Session:
    s = Session("fastapi-webhooks-en", cwd="/home/maya/src/relay-api", branch="fix/webhook-dupes",
                start="2026-02-17T09:41:12.004Z", version="2.1.39", slug="quiet-sorting-harbor",
                permission_mode="acceptEdits")
    s.user(
        "merchants are getting the same webhook 2-3 times when their endpoint is slow. "
        "Shopwell sent us logs, every dupe is ~2s apart. I think the retry fires while the "
        "first POST is still being processed on their side. can you look at "
        "app/delivery/sender.py?\n\nrepro against staging if you need it:\n"
        "curl -X POST https://staging.relay.internal/v1/events -H \"Authorization: Bearer "
        f"{TOKEN}\" -H 'Content-Type: application/json' -d '{{\"type\":\"order.paid\","
        "\"merchant\":\"shopwell\"}'",
        wait=5,
    )
    s.blank()
    s.think(
        "Read the sender and its tests first. The 2s spacing matches the 2.0 read timeout, so "
        "the theory is plausible: we time out, retry, and the merchant processes both."
    )
    s.call(s.read_call("app/delivery/sender.py", SENDER),
           s.read_call("tests/delivery/test_sender.py", TEST_SENDER))
    s.say(
        "Your theory checks out. The read timeout is 2.0s, and on `httpx.TimeoutException` the "
        "loop just posts again — but a timeout on our side says nothing about whether the "
        "merchant received the first request. Nothing in the headers is stable across attempts "
        "either (the signature is over the body, which is identical, but merchants don't dedupe "
        "on signatures), so from their side the retry looks like a brand-new event.\n\n"
        "Let me pin it down with a test first: a slow first attempt, then a 200."
    )
    s.edit("tests/delivery/test_sender.py", "    assert result.status is None\n",
           "    assert result.status is None\n" + NEW_TEST)
    s.bash("pytest -q tests/delivery 2>&1 | tail -15", """\
..F                                                                      [100%]
=================================== FAILURES ===================================
_____________ test_retry_after_timeout_reuses_idempotency_key _________________

    @pytest.mark.asyncio
    async def test_retry_after_timeout_reuses_idempotency_key():
...
>       assert seen[0] is not None
E       assert None is not None

tests/delivery/test_sender.py:52: AssertionError
=========================== short test summary info ============================
FAILED tests/delivery/test_sender.py::test_retry_after_timeout_reuses_idempotency_key - assert None is not None
1 failed, 2 passed in 0.41s""", desc="Run delivery tests", secs=3.1)
    s.say(
        "Reproduced: the retry goes out with no key at all.\n\n"
        "The retry itself has to stay on our side — merchants' endpoints can't distinguish a "
        "retried delivery from a new event unless we hand them something to compare. So every "
        "attempt of one delivery will carry the same `Relay-Idempotency-Key`, set to the event "
        "id. Using the event id (not a fresh uuid per delivery) also means a manual redelivery "
        "from the dashboard dedupes the same way."
    )
    s.edit("app/delivery/sender.py",
           '''    for attempt in range(1, MAX_ATTEMPTS + 1):
        headers = {
            "Content-Type": "application/json",
            "Relay-Signature": sign(secret, body),
        }''',
           '''    headers = {
        "Content-Type": "application/json",
        "Relay-Signature": sign(secret, body),
        # Same value on every attempt: merchants dedupe retries on it.
        "Relay-Idempotency-Key": str(event.id),
    }
    for attempt in range(1, MAX_ATTEMPTS + 1):''')
    s.bash("pytest -q tests/delivery 2>&1 | tail -15", """\
...                                                                      [100%]
3 passed in 0.38s""", desc="Run delivery tests", secs=2.8)
    s.say(
        "That passes. While here: the 2s read timeout is what turns a slow merchant into a "
        "retry in the first place. Want me to raise it to something like 10s? Most of the "
        "dupes in the Shopwell logs would disappear."
    )
    s.user(
        "no, don't push the timeout past 5 seconds. the sender pool is shared with the billing "
        "worker and a few slow merchants would starve it. 5 is fine"
    )
    s.say("Got it — 5s read timeout, connect stays at 1s.")
    s.edit("app/delivery/sender.py", "TIMEOUT = httpx.Timeout(2.0, connect=1.0)",
           "TIMEOUT = httpx.Timeout(5.0, connect=1.0)")
    s.bash("pytest -q 2>&1 | tail -20", """\
........................................................................ [ 50%]
.................................................F...................... [100%]
=================================== FAILURES ===================================
_______________________ test_fanout_sends_signed_headers _______________________

    async def test_fanout_sends_signed_headers(two_endpoints, client, event):
        await deliver_all(client, event)
        sent = respx.calls.last.request.headers
>       assert {k: sent[k] for k in sent if k.startswith(("content-type", "relay-"))} == {
            "content-type": "application/json",
            "relay-signature": sign("b", event.model_dump_json()),
        }
E       AssertionError: assert {'content-typ...ture': 'v1=9c0e...'} == {'content-typ...ture': 'v1=9c0e...'}
E         Left contains 1 more item:
E         {'relay-idempotency-key': 'evt_01HQ3ZK8R6W4'}

tests/delivery/test_batch.py:58: AssertionError
=========================== short test summary info ============================
FAILED tests/delivery/test_batch.py::test_fanout_sends_signed_headers - AssertionError: assert {'content-typ...
1 failed, 141 passed in 8.02s""", desc="Run full test suite", secs=9.5)
    s.say(
        "One failure, and it's the expected kind: `test_fanout_sends_signed_headers` pins the "
        "exact set of `relay-*` headers, so the new key shows up as an extra item. The header is "
        "intended, so the expectation changes — making the test ignore unknown headers would "
        "hide the next accidental header just as well."
    )
    s.read("tests/delivery/test_batch.py", '''import pytest
import respx

from app.delivery.batch import deliver_all
from app.delivery.signing import sign
from app.subscriptions import Endpoint

FAST = "https://fast.example/hook"
SLOW = "https://slow.example/hook"


@pytest.fixture
def two_endpoints(monkeypatch):
    async def fake_endpoints(event):
        return [Endpoint(url=FAST, secret="a"), Endpoint(url=SLOW, secret="b")]
    monkeypatch.setattr("app.delivery.batch.endpoints_for", fake_endpoints)


@respx.mock
async def test_fanout_hits_every_endpoint(two_endpoints, client, event):
    fast = respx.post(FAST).respond(200)
    slow = respx.post(SLOW).respond(200)
    deliveries = await deliver_all(client, event)
    assert fast.called and slow.called
    assert [d.status for d in deliveries] == [200, 200]


@respx.mock
async def test_fanout_sends_signed_headers(two_endpoints, client, event):
    respx.post(FAST).respond(200)
    respx.post(SLOW).respond(200)
    await deliver_all(client, event)
    sent = respx.calls.last.request.headers
    assert {k: sent[k] for k in sent if k.startswith(("content-type", "relay-"))} == {
        "content-type": "application/json",
        "relay-signature": sign("b", event.model_dump_json()),
    }
''', offset=None)
    s.edit("tests/delivery/test_batch.py", '''        "relay-signature": sign("b", event.model_dump_json()),
    }''', '''        "relay-signature": sign("b", event.model_dump_json()),
        "relay-idempotency-key": str(event.id),
    }''')
    s.bash("pytest -q 2>&1 | tail -20", """\
........................................................................ [ 50%]
........................................................................ [100%]
142 passed in 7.88s""", desc="Run full test suite", secs=9.1)
    s.bash("ruff check app tests && ruff format --check app tests", """\
All checks passed!
Would reformat: tests/delivery/test_sender.py
1 file would be reformatted, 30 files already formatted""", code=1, desc="Lint and format check")
    s.bash("ruff format tests/delivery/test_sender.py && ruff check app tests && ruff format "
           "--check app tests", """\
1 file reformatted
All checks passed!
31 files already formatted""", desc="Format the new test, re-check")
    s.say(
        "Done. Summary of the change:\n\n"
        "- **Cause:** `send()` retried on our read timeout (2s) with nothing stable in the "
        "headers, so a merchant that was merely slow processed the same event twice or three "
        "times.\n"
        "- **Fix:** every attempt of a delivery now carries `Relay-Idempotency-Key: <event id>` "
        "(`app/delivery/sender.py`), and the read timeout is 5s (your cap; connect stays 1s).\n"
        "- **Tests:** new `test_retry_after_timeout_reuses_idempotency_key`; the batch header "
        "test now expects the new header. 142 passed, ruff clean.\n\n"
        "Still open:\n"
        "- `deliver_all` retries on 4xx too (it only stops on `< 500` per attempt, but the batch "
        "requeue in `app/delivery/requeue.py` resends anything that isn't 2xx). A 410 from a "
        "deleted endpoint gets hammered every hour.\n"
        "- Merchant docs don't mention the new header yet, so nobody will dedupe on it until "
        "they do."
    )
    s.turn_end()
    s.user("good. I'll do the docs page myself. commit it, and leave the 4xx requeue for a "
           "separate PR", wait=70)
    s.bash('git add app/delivery/sender.py tests/delivery/test_sender.py tests/delivery/test_batch.py '
           '&& git commit -q -m "delivery: stable idempotency key across retries, 5s read timeout" '
           '&& git log --oneline -1', "3f1c2ab delivery: stable idempotency key across retries, "
           "5s read timeout", desc="Commit the fix")
    s.say("All green — 142 passed, committed as `3f1c2ab`.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "pytest failure hidden behind `| tail` (exit 0), edit, same command passing",
        "decision with its why before an Edit",
        "rule stated in a prompt (timeout cap)",
        "ruff failing then passing",
        "bearer token in the first prompt",
        "closing 'All green — 142 passed' after the real wrap-up with todos",
        "parallel Read calls",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "d1", "type": "decision",
         "match": [["idempotency"], ["event id", "event.id"], ["retr"]],
         "note": "Every retry of a webhook delivery carries the same Relay-Idempotency-Key (the "
                 "event id), because merchants can't tell a retried delivery from a new event "
                 "otherwise; the retry stays on Relay's side."},
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["timeout"], ["5 seconds", "5s"]],
         "note": "Never push the sender's timeout past 5 seconds: the sender pool is shared with "
                 "the billing worker and slow merchants would starve it."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "failed_attempt"],
         "match": [["dup", "twice", "same webhook", "same event", "retr"],
                   ["timeout", "timed out", "idempotency"]],
         "note": "Merchants got duplicate webhooks: send() retried after a 2s read timeout "
                 "with nothing stable in the headers; fixed with a per-event idempotency key."},
        {"id": "x1", "type": "project_fact", "types": ["project_fact", "bug_note"], "required": False,
         "match": [["test_fanout_sends_signed_headers", "pins"], ["header"]],
         "note": "test_fanout_sends_signed_headers pins the exact set of relay-* headers; a new "
                 "header means updating its expectation."},
        {"id": "t1", "type": "todo", "types": ["todo", "open_question"],
         "match": [["4xx"], ["requeue"]],
         "note": "The batch requeue (app/delivery/requeue.py) resends 4xx responses such as 410 "
                 "every hour; to be fixed in a separate PR."},
        {"id": "t2", "type": "todo", "required": False,
         "match": [["docs"], ["header", "Relay-Idempotency-Key"]],
         "note": "Merchant docs must mention the Relay-Idempotency-Key header (the user does it)."},
        {"id": "v1", "type": "verified_command", "command": "pytest -q tests/delivery"},
        {"id": "v2", "type": "verified_command", "command": "pytest -q"},
        {"id": "v3", "type": "verified_command", "required": False,
         "command": "ruff format tests/delivery/test_sender.py && ruff check app tests && ruff "
                    "format --check app tests"},
    ],
    "secrets": [TOKEN],
    "forbidden": [],
}
