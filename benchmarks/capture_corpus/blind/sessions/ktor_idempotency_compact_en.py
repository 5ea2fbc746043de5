# ruff: noqa: E501  (verbatim command output and file contents)
"""Kotlin Ktor + Exposed: idempotency keys on POST /payments; compaction in the middle; DB password in output (English, terse senior)."""

from make_sessions import Session

DB_PASSWORD = "Vq8!trM2xLp0zEe4"

ROUTES = '''package io.ledgerly.payments.routes

import io.ktor.http.HttpStatusCode
import io.ktor.server.application.call
import io.ktor.server.request.receive
import io.ktor.server.response.respond
import io.ktor.server.routing.Route
import io.ktor.server.routing.post
import io.ledgerly.payments.PaymentService
import io.ledgerly.payments.model.CreatePayment

fun Route.paymentRoutes(service: PaymentService) {
    post("/payments") {
        val body = call.receive<CreatePayment>()
        val created = service.create(body)
        call.respond(HttpStatusCode.Created, created)
    }
}
'''

APP = '''package io.ledgerly.payments

import io.ktor.server.application.Application
import io.ktor.server.routing.routing
import io.ledgerly.payments.db.Database
import io.ledgerly.payments.routes.paymentRoutes

fun Application.module() {
    val db = Database.connect(environment.config)
    val service = PaymentService(db, PspClient(environment.config))
    configureSerialization()
    routing {
        paymentRoutes(service)
    }
}
'''

MIGRATION = '''create table idempotency_keys (
    key          text primary key,
    request_hash text        not null,
    status_code  int,
    response     jsonb,
    created_at   timestamptz not null default now()
);
'''

REPO_V1 = '''package io.ledgerly.payments.idempotency

import org.jetbrains.exposed.sql.insert
import org.jetbrains.exposed.sql.select
import org.jetbrains.exposed.sql.transactions.transaction

class IdempotencyRepo(private val db: org.jetbrains.exposed.sql.Database) {
    fun find(key: String): StoredResponse? = transaction(db) {
        IdempotencyKeys.select { IdempotencyKeys.key eq key }.singleOrNull()?.toStored()
    }

    fun reserve(key: String, hash: String) = transaction(db) {
        IdempotencyKeys.insert {
            it[IdempotencyKeys.key] = key
            it[requestHash] = hash
        }
    }

    fun complete(key: String, status: Int, body: String) = transaction(db) {
        IdempotencyKeys.update({ IdempotencyKeys.key eq key }) {
            it[statusCode] = status
            it[response] = body
        }
    }
}
'''

SUMMARY = '''Summary:
1. Primary Request and Intent: Add idempotency to POST /payments in the Ktor payments service: clients send an `Idempotency-Key` header; a retry with the same key must get the stored response instead of charging twice.
2. Key Technical Concepts: Ktor 2.3, Exposed, Flyway, Postgres 15, kotest, ktlint. Keys stored in Postgres table `idempotency_keys` (V14 migration). Dependencies wired by hand in Application.module (user: "no Koin, wire it by hand like the other services"). No in-process cache: the service runs 6 replicas (user: "every time someone adds an in-memory cache here we regret it").
3. Files and Code Sections:
   - src/main/resources/db/migration/V14__idempotency_keys.sql: table with key (pk), request_hash, status_code, response jsonb, created_at.
   - src/main/kotlin/io/ledgerly/payments/idempotency/IdempotencyRepo.kt: find / reserve / complete.
   - src/main/kotlin/io/ledgerly/payments/routes/PaymentRoutes.kt: reads the header, hashes the body, replays or reserves.
   - Application.kt: installs DoubleReceive so the body can be read twice.
4. Errors and fixes: `call.receiveText()` followed by `call.receive<CreatePayment>()` threw RequestAlreadyConsumedException; installed the DoubleReceive plugin.
5. Pending Tasks: run IdempotencyTest (concurrent retries test was just written), ktlint.
6. Current Work: IdempotencyTest has a test firing two requests with the same key at once.'''


def build() -> Session:
    s = Session("ktor-idempotency-compact-en", cwd="/home/dmitri/code/ledgerly-payments", branch="PAY-812-idempotency",
                start="2026-02-10T14:02:44.310Z", version="2.1.41", slug="replayed-charge-heron")
    s.user("POST /payments needs Idempotency-Key support. mobile retries on timeouts and we double-charged 3 people last week. store keys in postgres. no Koin, wire it by hand like the other services", wait=4)
    s.call(s.read_call("src/main/kotlin/io/ledgerly/payments/routes/PaymentRoutes.kt", ROUTES),
           s.read_call("src/main/kotlin/io/ledgerly/payments/Application.kt", APP))
    s.glob("src/main/resources/db/migration/V*.sql", ["src/main/resources/db/migration/V12__refunds.sql", "src/main/resources/db/migration/V13__psp_reference_index.sql"])
    s.say(
        "Plan: a `idempotency_keys` table (V14), a small repo on Exposed, and the route checks the "
        "header first. The key row is inserted *before* we call the PSP, so a retry arriving while "
        "the first request is still running sees the reservation and gets a 409 instead of a second "
        "charge. I'll also store a hash of the body, so the same key with a different payload is a "
        "422 rather than a silent replay."
    )
    s.write("src/main/resources/db/migration/V14__idempotency_keys.sql", MIGRATION)
    s.write("src/main/kotlin/io/ledgerly/payments/idempotency/IdempotencyRepo.kt", REPO_V1)
    s.edit("src/main/kotlin/io/ledgerly/payments/routes/PaymentRoutes.kt", '''    post("/payments") {
        val body = call.receive<CreatePayment>()
        val created = service.create(body)
        call.respond(HttpStatusCode.Created, created)
    }''', '''    post("/payments") {
        val key = call.request.headers["Idempotency-Key"]
            ?: return@post call.respond(HttpStatusCode.BadRequest, "Idempotency-Key required")
        val raw = call.receiveText()
        val hash = sha256(raw)
        idem.find(key)?.let { stored ->
            if (stored.requestHash != hash) return@post call.respond(HttpStatusCode.UnprocessableEntity, "key reused with another body")
            if (stored.statusCode == null) return@post call.respond(HttpStatusCode.Conflict, "request in progress")
            return@post call.respondText(stored.response!!, ContentType.Application.Json, HttpStatusCode.fromValue(stored.statusCode))
        }
        idem.reserve(key, hash)
        val body = call.receive<CreatePayment>()
        val created = service.create(body)
        idem.complete(key, 201, json.encodeToString(created))
        call.respond(HttpStatusCode.Created, created)
    }''')
    s.bash("./gradlew test --tests '*PaymentRoutesTest*' 2>&1 | tail -12", '''PaymentRoutesTest > creates a payment FAILED
    io.ktor.server.plugins.BadRequestException: Failed to convert request body to class io.ledgerly.payments.model.CreatePayment
        Caused by: io.ktor.server.request.RequestAlreadyConsumedException: Request body has already been consumed (received).

PaymentRoutesTest > rejects missing key PASSED

2 tests completed, 1 failed

FAILURE: Build failed with an exception.

BUILD FAILED in 21s''', desc="Route tests", secs=26)
    s.edit("src/main/kotlin/io/ledgerly/payments/Application.kt", '''    configureSerialization()''', '''    configureSerialization()
    install(DoubleReceive)''')
    s.bash("./gradlew test --tests '*PaymentRoutesTest*' 2>&1 | tail -4", '''PaymentRoutesTest > rejects missing key PASSED

BUILD SUCCESSFUL in 17s
5 actionable tasks: 2 executed, 3 up-to-date''', desc="Route tests", secs=21)
    s.say(
        "Green. One thing I was going to add: a small Caffeine cache in front of `find` so replays "
        "don't hit Postgres every time —"
    )
    s.turn_end()
    s.user("no. 6 replicas, the retry lands on another pod anyway. every time someone adds an in-memory cache here we regret it. write a test for two requests with the same key at the same time", wait=35)
    s.say("Understood, no in-process cache. Writing the concurrency test.")
    s.write("src/test/kotlin/io/ledgerly/payments/IdempotencyTest.kt", '''class IdempotencyTest : FunSpec({
    test("same key twice at once charges once") {
        testPaymentsApp { client, psp ->
            val (a, b) = coroutineScope {
                val r1 = async { client.postPayment(key = "k-1", amount = 1299) }
                val r2 = async { client.postPayment(key = "k-1", amount = 1299) }
                r1.await() to r2.await()
            }
            setOf(a.status, b.status) shouldBe setOf(HttpStatusCode.Created, HttpStatusCode.Conflict)
            psp.charges shouldHaveSize 1
        }
    }
})
''')
    s.compact(SUMMARY, pre_tokens=158930)
    s.say("Continuing: running the new concurrency test.")
    s.bash("./gradlew test --tests '*IdempotencyTest*' 2>&1 | tail -10", '''IdempotencyTest > same key twice at once charges once FAILED
    io.kotest.assertions.AssertionFailedError: expected:<[201 Created, 409 Conflict]> but was:<[201 Created, 500 Internal Server Error]>

1 test completed, 1 failed

FAILURE: Build failed with an exception.

BUILD FAILED in 24s''', desc="Idempotency test", secs=29)
    s.bash("grep -A4 'ERROR' build/test-results/test/TEST-io.ledgerly.payments.IdempotencyTest.xml | head -8", '''14:41:07.902 [eventLoopGroupProxy-4-2] ERROR Application - Unhandled: POST - /payments
org.jetbrains.exposed.exceptions.ExposedSQLException: org.postgresql.util.PSQLException: ERROR: duplicate key value violates unique constraint "idempotency_keys_pkey"
  Detail: Key (key)=(k-1) already exists.''', desc="Find the 500")
    s.say(
        "Both requests pass `find` before either has inserted, then the second `insert` hits the "
        "primary key and bubbles up as a 500. The check-then-insert is a race. Making the reservation "
        "itself the check: `INSERT … ON CONFLICT (key) DO NOTHING` and look at the affected row "
        "count — 1 means we own the key, 0 means someone else does, then read their row."
    )
    s.edit("src/main/kotlin/io/ledgerly/payments/idempotency/IdempotencyRepo.kt", '''    fun reserve(key: String, hash: String) = transaction(db) {
        IdempotencyKeys.insert {
            it[IdempotencyKeys.key] = key
            it[requestHash] = hash
        }
    }''', '''    /** true if this call owns the key; false if another request reserved it first. */
    fun reserve(key: String, hash: String): Boolean = transaction(db) {
        IdempotencyKeys.insertIgnore {
            it[IdempotencyKeys.key] = key
            it[requestHash] = hash
        }.insertedCount == 1
    }''')
    s.edit("src/main/kotlin/io/ledgerly/payments/routes/PaymentRoutes.kt", '''        idem.find(key)?.let { stored ->''', '''        if (!idem.reserve(key, hash)) {
            val stored = idem.find(key)!!''')
    s.edit("src/main/kotlin/io/ledgerly/payments/routes/PaymentRoutes.kt", '''            return@post call.respondText(stored.response!!, ContentType.Application.Json, HttpStatusCode.fromValue(stored.statusCode))
        }
        idem.reserve(key, hash)''', '''            return@post call.respondText(stored.response!!, ContentType.Application.Json, HttpStatusCode.fromValue(stored.statusCode))
        }''')
    s.bash("./gradlew test --tests '*IdempotencyTest*' 2>&1 | tail -4", '''IdempotencyTest > same key twice at once charges once PASSED

BUILD SUCCESSFUL in 19s
5 actionable tasks: 2 executed, 3 up-to-date''', desc="Idempotency test", secs=23)
    s.bash("docker compose config 2>&1 | grep -A4 'postgres:'", f'''  postgres:
    environment:
      POSTGRES_DB: payments
      POSTGRES_PASSWORD: {DB_PASSWORD}
      POSTGRES_USER: payments''', desc="Check local DB settings")
    s.bash("./gradlew flywayMigrate test ktlintCheck 2>&1 | tail -5", '''Successfully applied 1 migration to schema "public", now at version v14 (execution time 00:00.041s)

BUILD SUCCESSFUL in 52s
11 actionable tasks: 6 executed, 5 up-to-date''', desc="Migrate, full tests, lint", secs=58)
    s.say(
        "Done:\n\n"
        "- `V14__idempotency_keys.sql`, `IdempotencyRepo` wired by hand in `Application.module`.\n"
        "- The reservation is an `INSERT … ON CONFLICT DO NOTHING` (`insertIgnore`), so two "
        "concurrent retries can't both pass; the loser gets 409 while the first is in flight, the "
        "stored 201 afterwards. Same key + different body → 422.\n"
        "- `DoubleReceive` installed because we hash the raw body and then deserialize it.\n"
        "- Full suite, migration and ktlint green.\n\n"
        "Not done: nothing deletes old keys yet. And if the PSP call throws after the reservation, "
        "the key stays reserved with no status — right now a retry would get 409 forever. I think "
        "the reservation should be released on an exception, but that depends on whether the PSP "
        "might have charged anyway. Also, I picked no TTL; what does the mobile client's retry "
        "window look like?"
    )
    s.turn_end()
    s.user("release on exception only for PspUnavailable, anything else keep it and let ops look. ttl: ask Priya, she owns the mobile retry logic. cleanup I'll hang on the housekeeping worker tomorrow, NOT a new cron", wait=120)
    s.edit("src/main/kotlin/io/ledgerly/payments/routes/PaymentRoutes.kt", '''        val created = service.create(body)
        idem.complete(key, 201, json.encodeToString(created))''', '''        val created = try {
            service.create(body)
        } catch (e: PspUnavailable) {
            idem.release(key) // PSP never saw it: safe to retry
            throw e
        }
        idem.complete(key, 201, json.encodeToString(created))''')
    s.edit("src/main/kotlin/io/ledgerly/payments/idempotency/IdempotencyRepo.kt", '''    fun complete(''', '''    fun release(key: String) = transaction(db) {
        IdempotencyKeys.deleteWhere { IdempotencyKeys.key eq key }
    }

    fun complete(''')
    s.bash("./gradlew test ktlintCheck 2>&1 | tail -3", '''BUILD SUCCESSFUL in 41s
9 actionable tasks: 4 executed, 5 up-to-date''', desc="Tests and lint", secs=45)
    s.say("Released only on `PspUnavailable`; other failures keep the reservation. Tests and ktlint green.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Kotlin Ktor 2.3 + Exposed + Flyway, English, a terse senior",
        "rule in the first prompt (no Koin, wire by hand like the other services)",
        "a cache proposal cut off by the user with a rule stated as a complaint (6 replicas)",
        "RequestAlreadyConsumedException fixed silently with DoubleReceive",
        "compaction between the test being written and its first run",
        "check-then-insert race (duplicate key, 500) behind `| tail`, fixed with ON CONFLICT DO NOTHING",
        "DB password in `docker compose config` output (secret)",
        "user decisions in one line at the end; todo the user takes, question for a colleague",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Koin"], ["by hand"]],
         "note": "No Koin in the payments service: dependencies are wired by hand like in the other services."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["cache"], ["replicas", "regret"]],
         "note": "No in-memory cache in the payments service: it runs 6 replicas and a retry lands on another pod; every time someone added one they regretted it."},
        {"id": "d1", "type": "decision",
         "match": [["idempotency_keys", "Idempotency-Key"], ["postgres"], ["double-charged", "retries", "retry"]],
         "note": "Idempotency keys for POST /payments live in a Postgres table; added because mobile retries on timeouts double-charged three customers."},
        {"id": "d2", "type": "decision",
         "match": [["hash"], ["422", "different body", "another body"]],
         "note": "A hash of the request body is stored with the key; the same key with a different body gets 422 rather than a replay."},
        {"id": "b1", "type": "bug_note", "types": ["bug_note", "failed_attempt"],
         "match": [["duplicate key", "race", "500"], ["ON CONFLICT", "insertIgnore"]],
         "note": "find-then-insert let two concurrent retries both pass and the second died on the primary key (500); the reservation is now INSERT ... ON CONFLICT DO NOTHING (insertIgnore) and the loser gets 409."},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "failed_attempt", "project_fact"], "required": False,
         "match": [["DoubleReceive", "RequestAlreadyConsumed"]],
         "note": "Reading the raw body and then receive<T>() throws RequestAlreadyConsumedException; DoubleReceive is installed."},
        {"id": "d3", "type": "decision", "types": ["decision", "constraint"],
         "match": [["PspUnavailable"], ["release"]],
         "note": "A reserved key is released only when the PSP call fails with PspUnavailable; any other failure keeps the reservation for ops to look at."},
        {"id": "t1", "type": "todo",
         "match": [["housekeeping"], ["cleanup", "old keys", "tomorrow"]],
         "note": "Dmitri hangs the cleanup of old idempotency keys on the housekeeping worker tomorrow."},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["cron"], ["housekeeping"]],
         "note": "No new cron jobs: periodic work goes on the existing housekeeping worker."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["Priya"], ["ttl", "retry"]],
         "note": "The TTL for idempotency keys depends on the mobile client's retry window: ask Priya, who owns the mobile retry logic."},
        {"id": "v1", "type": "verified_command", "command": "./gradlew test --tests '*IdempotencyTest*'"},
        {"id": "v2", "type": "verified_command", "command": "./gradlew flywayMigrate test ktlintCheck"},
        {"id": "v3", "type": "verified_command", "command": "./gradlew test ktlintCheck"},
        {"id": "v4", "type": "verified_command", "required": False, "command": "./gradlew test --tests '*PaymentRoutesTest*'"},
    ],
    "secrets": [DB_PASSWORD],
    "forbidden": [["This session is being continued"], ["Primary Request and Intent"]],
}
