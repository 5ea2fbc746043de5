# ruff: noqa: E501  (verbatim command output and file contents)
"""Rust axum + sqlx checkout: PoolTimedOut under a slow PSP (HTTP call inside the transaction), pasted log and panic backtrace; the user picks an outbox over a bigger pool; sqlx offline cache error in a background test run; migration against the shared dev DB rejected; SKIP LOCKED (German)."""

from make_sessions import Session

CHECKOUT_RS = '''use axum::{extract::State, Json};

use crate::{error::ApiError, psp::PaymentRequest, state::AppState};

#[derive(serde::Deserialize)]
pub struct CheckoutReq {
    pub customer_id: i64,
    pub items: Vec<Item>,
    pub total_cents: i64,
}

#[derive(serde::Serialize)]
pub struct CheckoutResp {
    pub order_id: i64,
    pub redirect_url: String,
}

pub async fn checkout(
    State(app): State<AppState>,
    Json(req): Json<CheckoutReq>,
) -> Result<Json<CheckoutResp>, ApiError> {
    let mut tx = app.db.begin().await?;
    let order_id = insert_order(&mut tx, &req).await?;
    reserve_stock(&mut tx, &req.items).await?;

    // PSP anlegen, damit wir die redirect_url gleich zurückgeben können
    let payment = app
        .psp
        .create_payment(PaymentRequest { order_id, amount_cents: req.total_cents })
        .await?;

    sqlx::query!(
        "UPDATE orders SET psp_payment_id = $1 WHERE id = $2",
        payment.id,
        order_id
    )
    .execute(&mut *tx)
    .await?;

    tx.commit().await?;
    Ok(Json(CheckoutResp { order_id, redirect_url: payment.redirect_url }))
}
'''

HEALTH_RS = '''use axum::extract::State;

use crate::state::AppState;

pub async fn health(State(app): State<AppState>) -> &'static str {
    let mut conn = app.db.acquire().await.unwrap();
    sqlx::query("SELECT 1").execute(&mut *conn).await.unwrap();
    "ok"
}
'''

STATE_RS = '''use std::time::Duration;

use sqlx::postgres::PgPoolOptions;

pub async fn pool(url: &str) -> sqlx::PgPool {
    PgPoolOptions::new()
        .max_connections(10)
        .acquire_timeout(Duration::from_secs(5))
        .connect(url)
        .await
        .expect("db connect")
}
'''

OUTBOX_RS = '''use std::time::Duration;

use sqlx::PgPool;

use crate::psp::{PaymentRequest, Psp};

/// Übernommen aus bestellservice/src/outbox.rs: holt offene payment_outbox-Zeilen und legt die Zahlung beim PSP an.
pub async fn run(db: PgPool, psp: Psp) {
    loop {
        if let Err(e) = tick(&db, &psp).await {
            tracing::error!(err = %e, "payment outbox tick");
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

pub async fn tick(db: &PgPool, psp: &Psp) -> anyhow::Result<usize> {
    let rows = sqlx::query!(
        "SELECT id, order_id, amount_cents FROM payment_outbox
         WHERE done_at IS NULL ORDER BY id LIMIT 20"
    )
    .fetch_all(db)
    .await?;
    for r in &rows {
        // PSP-Aufruf ohne offene Transaktion: hängt der PSP, hängt nur dieser Worker
        let payment = psp
            .create_payment(PaymentRequest { order_id: r.order_id, amount_cents: r.amount_cents })
            .await?;
        let mut tx = db.begin().await?;
        sqlx::query!("UPDATE orders SET psp_payment_id = $1, redirect_url = $2 WHERE id = $3",
                     payment.id, payment.redirect_url, r.order_id)
            .execute(&mut *tx).await?;
        sqlx::query!("UPDATE payment_outbox SET done_at = now() WHERE id = $1", r.id)
            .execute(&mut *tx).await?;
        tx.commit().await?;
    }
    Ok(rows.len())
}
'''

PROMPT = '''checkout-api ist heute morgen zweimal weggekippt, genau als der PSP langsam war (Unzer hatte ne Störung). logs:

```
2026-10-02T07:14:03.118Z  WARN checkout_api::psp: create_payment slow order_id=884213 elapsed_ms=28417
2026-10-02T07:14:05.902Z ERROR checkout_api::routes::checkout: checkout failed err=pool timed out while waiting for an open connection
2026-10-02T07:14:05.944Z ERROR checkout_api::routes::checkout: checkout failed err=pool timed out while waiting for an open connection
2026-10-02T07:14:06.210Z ERROR checkout_api::routes::cart: get_cart failed err=pool timed out while waiting for an open connection
2026-10-02T07:14:07.511Z ERROR checkout_api::routes::checkout: checkout failed err=pool timed out while waiting for an open connection
thread 'tokio-runtime-worker' panicked at src/routes/health.rs:6:49:
called `Result::unwrap()` on an `Err` value: PoolTimedOut
stack backtrace:
   0: rust_begin_unwind
             at /rustc/3f5fd8dd41153bc5fdca9427e9e05be2c767ba23/library/std/src/panicking.rs:652:5
   1: core::panicking::panic_fmt
             at /rustc/3f5fd8dd41153bc5fdca9427e9e05be2c767ba23/library/core/src/panicking.rs:72:14
   2: core::result::unwrap_failed
             at /rustc/3f5fd8dd41153bc5fdca9427e9e05be2c767ba23/library/core/src/result.rs:1679:5
   3: core::result::Result<T,E>::unwrap
             at /rustc/3f5fd8dd41153bc5fdca9427e9e05be2c767ba23/library/core/src/result.rs:1102:23
   4: checkout_api::routes::health::health::{{closure}}
             at ./src/routes/health.rs:6:20
   5: <axum::handler::future::IntoServiceFuture<F> as core::future::future::Future>::poll
             at /usr/local/cargo/registry/src/index.crates.io-6f17d22bba15001f/axum-0.7.5/src/handler/future.rs:28:9
   6: <tower::util::map_response::MapResponseFuture<F,N> as core::future::future::Future>::poll
             at /usr/local/cargo/registry/src/index.crates.io-6f17d22bba15001f/tower-0.4.13/src/util/map_response.rs:97:9
   7: hyper::proto::h1::dispatch::Dispatcher<D,Bs,I,T>::poll_catch
             at /usr/local/cargo/registry/src/index.crates.io-6f17d22bba15001f/hyper-1.3.1/src/proto/h1/dispatch.rs:173:16
   8: tokio::runtime::task::core::Core<T,S>::poll
             at /usr/local/cargo/registry/src/index.crates.io-6f17d22bba15001f/tokio-1.38.0/src/runtime/task/core.rs:328:17
note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.
2026-10-02T07:14:11.003Z  WARN kubelet: Liveness probe failed: HTTP probe failed with statuscode: 500
```

danach restart, 40 sek kein checkout. schau mal'''


def build() -> Session:
    s = Session("axum-sqlx-pool-outbox-de", cwd="/home/lukas/code/checkout-api", branch="fix/pool-timeout-psp",
                start="2026-10-02T09:02:44.517Z", version="2.1.56", slug="psp-outbox-pool-timeout")
    s.user(PROMPT, wait=4)
    s.call(s.read_call("src/routes/checkout.rs", CHECKOUT_RS), s.read_call("src/routes/health.rs", HEALTH_RS),
           s.read_call("src/state.rs", STATE_RS))
    s.grep("timeout", content='''src/psp.rs:14:            .timeout(Duration::from_secs(30))
src/state.rs:8:        .acquire_timeout(Duration::from_secs(5))''', path="src")
    s.say(
        "Der Ablauf aus den Logs passt genau zum Code:\n\n"
        "1. `checkout` öffnet eine Transaktion und ruft **innerhalb** davon `psp.create_payment` auf (HTTP, Timeout 30 s).\n"
        "2. Während der Unzer-Störung dauerte das ~28 s. Jede laufende Checkout-Anfrage hält so lange eine Verbindung — bei "
        "`max_connections(10)` sind nach 10 gleichzeitigen Checkouts alle weg.\n"
        "3. Alles andere (`get_cart`, …) wartet 5 s (`acquire_timeout`) und bekommt `PoolTimedOut`.\n"
        "4. `health` macht `.unwrap()` auf `acquire()` → Panic → 500 → Liveness-Probe schlägt fehl → kubelet startet den Pod "
        "neu, und damit sind auch die laufenden Checkouts weg.\n\n"
        "Möglichkeiten:\n"
        "- **A: Transaktion vor dem PSP-Aufruf committen**, danach `psp_payment_id` in einer zweiten kurzen Transaktion setzen. "
        "Kleine Änderung, aber der Request wartet weiterhin bis zu 30 s, und wenn der Pod dazwischen stirbt, gibt es eine "
        "Bestellung ohne Zahlung.\n"
        "- **B: Outbox**: In der Transaktion nur `payment_outbox` schreiben, ein Worker legt die Zahlung an. Checkout antwortet "
        "sofort, die `redirect_url` kommt aber erst später (Frontend müsste pollen).\n"
        "- **C: Pool größer** (z. B. 50). Verschiebt das Problem nur.\n\n"
        "Unabhängig davon sollte `health` bei fehlender Verbindung 503 zurückgeben statt zu paniken."
    )
    s.turn_end()
    s.user(
        "B, outbox. wenn der psp hängt soll der checkout trotzdem durchgehen, und im bestellservice haben wir den outbox worker schon, den kannst du fast 1:1 übernehmen. "
        "pool hochdrehen bringt nix, die RDS hat 100 connections für alle services zusammen. frontend pollt den bestellstatus eh schon, da kommt die redirect_url halt mit rein",
        wait=70,
    )
    s.bash("ls ../bestellservice/src/ && ls migrations/", '''main.rs
outbox.rs
routes
state.rs
20260611120000_orders.sql
20260702093000_stock_reservations.sql''', desc="Outbox im Bestellservice, vorhandene Migrationen")
    s.read("../bestellservice/src/outbox.rs", '''// Versand-Outbox: eine Replica, ein Worker.
pub async fn tick(db: &PgPool, mq: &Mq) -> anyhow::Result<usize> {
    let rows = sqlx::query!(
        "SELECT id, payload FROM shipping_outbox WHERE done_at IS NULL ORDER BY id LIMIT 20"
    )
    .fetch_all(db)
    .await?;
    for r in &rows {
        mq.publish("shipping.requested", &r.payload).await?;
        sqlx::query!("UPDATE shipping_outbox SET done_at = now() WHERE id = $1", r.id)
            .execute(db).await?;
    }
    Ok(rows.len())
}''')
    s.write("migrations/20261002091500_payment_outbox.sql", '''CREATE TABLE payment_outbox (
    id           bigserial PRIMARY KEY,
    order_id     bigint NOT NULL REFERENCES orders (id),
    amount_cents bigint NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    done_at      timestamptz
);
CREATE INDEX payment_outbox_open ON payment_outbox (id) WHERE done_at IS NULL;

ALTER TABLE orders ADD COLUMN redirect_url text;
''')
    s.write("src/outbox.rs", OUTBOX_RS)
    s.edit("src/routes/checkout.rs", '''    // PSP anlegen, damit wir die redirect_url gleich zurückgeben können
    let payment = app
        .psp
        .create_payment(PaymentRequest { order_id, amount_cents: req.total_cents })
        .await?;

    sqlx::query!(
        "UPDATE orders SET psp_payment_id = $1 WHERE id = $2",
        payment.id,
        order_id
    )
    .execute(&mut *tx)
    .await?;

    tx.commit().await?;
    Ok(Json(CheckoutResp { order_id, redirect_url: payment.redirect_url }))''', '''    // Kein PSP-Aufruf in der Transaktion: der Outbox-Worker legt die Zahlung an,
    // die redirect_url kommt über GET /orders/{id} (Frontend pollt).
    sqlx::query!(
        "INSERT INTO payment_outbox (order_id, amount_cents) VALUES ($1, $2)",
        order_id,
        req.total_cents
    )
    .execute(&mut *tx)
    .await?;

    tx.commit().await?;
    Ok(Json(CheckoutResp { order_id }))''')
    s.edit("src/routes/checkout.rs", '''pub struct CheckoutResp {
    pub order_id: i64,
    pub redirect_url: String,
}''', '''pub struct CheckoutResp {
    pub order_id: i64,
}''')
    s.edit("src/routes/checkout.rs", '''use crate::{error::ApiError, psp::PaymentRequest, state::AppState};''', '''use crate::{error::ApiError, state::AppState};''')
    s.write("src/routes/health.rs", '''use axum::{extract::State, http::StatusCode};

use crate::state::AppState;

/// Ohne freie DB-Verbindung 503 statt Panic (Panic -> 500 -> Liveness-Probe -> Neustart mitten in laufenden Checkouts).
pub async fn health(State(app): State<AppState>) -> Result<&'static str, StatusCode> {
    let mut conn = app.db.acquire().await.map_err(|_| StatusCode::SERVICE_UNAVAILABLE)?;
    sqlx::query("SELECT 1")
        .execute(&mut *conn)
        .await
        .map_err(|_| StatusCode::SERVICE_UNAVAILABLE)?;
    Ok("ok")
}
''')
    s.say("Migration und Code stehen. Jetzt die Migration einspielen, damit `sqlx::query!` die neue Tabelle beim Kompilieren sieht:")
    s.bash_rejected("sqlx migrate run", desc="Migration einspielen (DATABASE_URL aus .env)",
                    reason="stop, die .env zeigt auf die dev-DB, die teilen wir mit drei teams. migrationen laufen da nur über die pipeline. nimm den lokalen container aus docker-compose")
    s.bash("docker compose up -d db && sleep 3 && DATABASE_URL=postgres://postgres:postgres@localhost:5433/checkout sqlx migrate run", ''' Container checkout-api-db-1  Running
Applied 20260611120000/migrate orders (14.212ms)
Applied 20260702093000/migrate stock reservations (6.881ms)
Applied 20261002091500/migrate payment outbox (5.104ms)''', desc="Lokale DB hoch, Migrationen lokal", secs=9)
    t1 = s.bash_bg("cargo test --all-targets", "Tests (testcontainers, dauert)")
    s.say("Tests laufen im Hintergrund (Integrationstests mit testcontainers, ein paar Minuten). Währenddessen den Worker in `main.rs` starten:")
    s.read("src/main.rs", '''mod error;
mod psp;
mod routes;
mod state;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt().json().init();
    let cfg = config::load()?;
    let db = state::pool(&cfg.database_url).await;
    let psp = psp::Psp::new(&cfg.psp)?;
    let app = routes::router(state::AppState { db, psp });
    let listener = tokio::net::TcpListener::bind(&cfg.listen).await?;
    axum::serve(listener, app).await?;
    Ok(())
}''')
    s.edit("src/main.rs", '''mod error;
mod psp;''', '''mod error;
mod outbox;
mod psp;''')
    s.edit("src/main.rs", '''    let app = routes::router(state::AppState { db, psp });''', '''    tokio::spawn(outbox::run(db.clone(), psp.clone()));
    let app = routes::router(state::AppState { db, psp });''')
    out = s.task_notification(t1, "Tests (testcontainers, dauert)", status="failed", exit_code=101, wait=95)
    s.read(out, '''   Compiling testcontainers-modules v0.8.0
   Compiling sqlx-macros-core v0.7.4
   Compiling sqlx-macros v0.7.4
   Compiling sqlx v0.7.4
   Compiling checkout-api v0.4.2 (/home/lukas/code/checkout-api)
error: `SQLX_OFFLINE=true` but there is no cached data for this query, run `cargo sqlx prepare` to update the query cache or unset `SQLX_OFFLINE`
  --> src/routes/checkout.rs:31:5
   |
31 | /     sqlx::query!(
32 | |         "INSERT INTO payment_outbox (order_id, amount_cents) VALUES ($1, $2)",
33 | |         order_id,
34 | |         req.total_cents
35 | |     )
   | |_____^
   |
   = note: this error originates in the macro `$crate::sqlx_macros::expand_query` (in Nightly builds, run with -Z macro-backtrace for more info)

error: `SQLX_OFFLINE=true` but there is no cached data for this query, run `cargo sqlx prepare` to update the query cache or unset `SQLX_OFFLINE`
  --> src/outbox.rs:19:16
   |
19 |       let rows = sqlx::query!(
   |  ________________^
20 | |         "SELECT id, order_id, amount_cents FROM payment_outbox
21 | |          WHERE done_at IS NULL ORDER BY id LIMIT 20"
22 | |     )
   | |_____^

error: could not compile `checkout-api` (bin "checkout-api") due to 4 previous errors
warning: build failed, waiting for other jobs to finish...
error: could not compile `checkout-api` (bin "checkout-api" test) due to 4 previous errors''')
    s.say(
        "Kompiliert nicht — die eigentliche Ursache steht in der Mitte: `SQLX_OFFLINE=true` (aus `.cargo/config.toml`), und "
        "`.sqlx/` kennt die neuen Queries noch nicht. Query-Cache gegen die lokale DB neu erzeugen:"
    )
    s.bash("DATABASE_URL=postgres://postgres:postgres@localhost:5433/checkout cargo sqlx prepare -- --all-targets", '''    Checking checkout-api v0.4.2 (/home/lukas/code/checkout-api)
    Finished `dev` profile [unoptimized + debuginfo] target(s) in 11.84s
query data written to .sqlx in the current directory; please check this into version control''', desc="sqlx Query-Cache aktualisieren", secs=25)
    s.write("tests/outbox_concurrency.rs", '''mod common;

use checkout_api::outbox;

/// Zwei Worker (zwei Replicas) dürfen dieselbe Zeile nicht beide abarbeiten.
#[tokio::test]
async fn two_workers_create_one_payment() {
    let env = common::env().await;
    common::insert_order_with_outbox(&env.db, 4200).await;
    let (a, b) = tokio::join!(outbox::tick(&env.db, &env.psp), outbox::tick(&env.db, &env.psp));
    a.unwrap();
    b.unwrap();
    assert_eq!(env.psp_mock.created_payments().await, 1);
}
''')
    s.bash("cargo test --all-targets 2>&1 | grep -v '^test .* ok$'", '''   Compiling checkout-api v0.4.2 (/home/lukas/code/checkout-api)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 38.20s
     Running unittests src/lib.rs (target/debug/deps/checkout_api-5d1e0b6f9c2a7e43)

running 12 tests

test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.04s

     Running tests/checkout.rs (target/debug/deps/checkout-a81c2f7de0b94c15)

running 6 tests

test result: ok. 6 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 9.88s

     Running tests/outbox_concurrency.rs (target/debug/deps/outbox_concurrency-0e7b2f41c9d8a356)

running 1 test
test two_workers_create_one_payment ... FAILED

failures:

---- two_workers_create_one_payment stdout ----
thread 'two_workers_create_one_payment' panicked at tests/outbox_concurrency.rs:13:5:
assertion `left == right` failed
  left: 2
 right: 1
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    two_workers_create_one_payment

test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 3.41s

error: test failed, to rerun pass `--test outbox_concurrency`''', code=101, desc="Tests inkl. neuem Nebenläufigkeitstest", secs=70)
    s.say(
        "Wie befürchtet: zwei Worker legen **zwei** Zahlungen für dieselbe Bestellung an. Der Bestellservice-Worker ist für "
        "eine Replica geschrieben (steht sogar im Kommentar) — checkout-api läuft mit 3. Beide `SELECT`s sehen dieselbe offene "
        "Zeile. Lösung: die Zeilen in einer Transaktion mit `FOR UPDATE SKIP LOCKED` holen und erst nach dem PSP-Aufruf "
        "freigeben. Dann hält zwar der Worker eine Verbindung während des PSP-Aufrufs — aber nur eine, nicht die des Checkouts."
    )
    s.edit("src/outbox.rs", '''pub async fn tick(db: &PgPool, psp: &Psp) -> anyhow::Result<usize> {
    let rows = sqlx::query!(
        "SELECT id, order_id, amount_cents FROM payment_outbox
         WHERE done_at IS NULL ORDER BY id LIMIT 20"
    )
    .fetch_all(db)
    .await?;
    for r in &rows {
        // PSP-Aufruf ohne offene Transaktion: hängt der PSP, hängt nur dieser Worker
        let payment = psp
            .create_payment(PaymentRequest { order_id: r.order_id, amount_cents: r.amount_cents })
            .await?;
        let mut tx = db.begin().await?;
        sqlx::query!("UPDATE orders SET psp_payment_id = $1, redirect_url = $2 WHERE id = $3",
                     payment.id, payment.redirect_url, r.order_id)
            .execute(&mut *tx).await?;
        sqlx::query!("UPDATE payment_outbox SET done_at = now() WHERE id = $1", r.id)
            .execute(&mut *tx).await?;
        tx.commit().await?;
    }
    Ok(rows.len())
}''', '''pub async fn tick(db: &PgPool, psp: &Psp) -> anyhow::Result<usize> {
    // checkout-api läuft mit 3 Replicas: SKIP LOCKED, sonst legen zwei Worker dieselbe Zahlung an.
    // Eine Zeile pro Transaktion, damit ein hängender PSP nur eine Verbindung dieses Workers hält.
    let mut tx = db.begin().await?;
    let Some(r) = sqlx::query!(
        "SELECT id, order_id, amount_cents FROM payment_outbox
         WHERE done_at IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"
    )
    .fetch_optional(&mut *tx)
    .await?
    else {
        return Ok(0);
    };
    let payment = psp
        .create_payment(PaymentRequest { order_id: r.order_id, amount_cents: r.amount_cents })
        .await?;
    sqlx::query!("UPDATE orders SET psp_payment_id = $1, redirect_url = $2 WHERE id = $3",
                 payment.id, payment.redirect_url, r.order_id)
        .execute(&mut *tx).await?;
    sqlx::query!("UPDATE payment_outbox SET done_at = now() WHERE id = $1", r.id)
        .execute(&mut *tx).await?;
    tx.commit().await?;
    Ok(1)
}''')
    s.bash("DATABASE_URL=postgres://postgres:postgres@localhost:5433/checkout cargo sqlx prepare -- --all-targets", '''    Checking checkout-api v0.4.2 (/home/lukas/code/checkout-api)
    Finished `dev` profile [unoptimized + debuginfo] target(s) in 6.02s
query data written to .sqlx in the current directory; please check this into version control''', desc="Query-Cache nach der Änderung", secs=15)
    t2 = s.bash_bg("cargo test --all-targets", "Tests nach SKIP LOCKED")
    s.bash("cargo clippy --all-targets -- -D warnings", '''    Checking checkout-api v0.4.2 (/home/lukas/code/checkout-api)
    Finished `dev` profile [unoptimized + debuginfo] target(s) in 8.77s''', desc="Clippy", secs=14)
    s.task_notification(t2, "Tests nach SKIP LOCKED", wait=80)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{t2}.output", '''   Compiling checkout-api v0.4.2 (/home/lukas/code/checkout-api)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 35.61s
     Running unittests src/lib.rs (target/debug/deps/checkout_api-5d1e0b6f9c2a7e43)
test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.04s
     Running tests/checkout.rs (target/debug/deps/checkout-a81c2f7de0b94c15)
test result: ok. 6 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 9.71s
     Running tests/health.rs (target/debug/deps/health-3c9e10a2f7b5d864)
test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 5.12s
     Running tests/outbox_concurrency.rs (target/debug/deps/outbox_concurrency-0e7b2f41c9d8a356)
test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 3.02s''')
    s.say(
        "Alles grün (21 Tests), Clippy sauber.\n\n"
        "- **Ursache:** PSP-Aufruf (bis 30 s) innerhalb der Checkout-Transaktion → 10er-Pool leer → `PoolTimedOut` überall, "
        "`health` panict → Liveness-Probe → Neustart.\n"
        "- **Jetzt:** Checkout schreibt nur `payment_outbox` und antwortet sofort; `src/outbox.rs` legt die Zahlung an, eine "
        "Zeile pro Transaktion mit `FOR UPDATE SKIP LOCKED` (3 Replicas — der 1:1 übernommene Worker hat doppelt angelegt). "
        "`redirect_url` steht jetzt in `orders` und kommt über den Bestellstatus.\n"
        "- `health` gibt 503 statt zu paniken.\n"
        "- Migration nur lokal eingespielt; `.sqlx/` neu erzeugt (muss mit ins Commit).\n\n"
        "Offen: Wenn `create_payment` in einen Timeout läuft, beim PSP aber doch angelegt wurde, legt der Worker beim nächsten "
        "Versuch eine zweite Zahlung an. Dafür bräuchte es einen Idempotency-Key pro `order_id`, falls Unzer das unterstützt. "
        "Und `CheckoutResp` hat keine `redirect_url` mehr — das ist eine API-Änderung fürs Frontend."
    )
    s.turn_end()
    s.user(
        "gut. ob unzer idempotency keys kann weiß ich nicht, frag ich morgen beim support. "
        "Jana muss im frontend die redirect_url aus dem status nehmen statt aus der checkout antwort, sag ich ihr nachher, vorher nicht mergen",
        wait=95,
    )
    s.bash("git add -A && git commit -qm 'checkout: PSP über payment_outbox statt in der Transaktion, health 503 statt panic' && git log --oneline -1",
           "b7f0e21 checkout: PSP über payment_outbox statt in der Transaktion, health 503 statt panic", desc="Commit (nicht pushen)")
    s.say("Committet, nicht gepusht — Merge erst nach Janas Frontend-Änderung.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Rust axum 0.7 + sqlx (offline mode) checkout service, German",
        "a long pasted log with a panic backtrace in the first prompt (PoolTimedOut, health unwrap, liveness restart)",
        "the user's choice of an outbox over committing early or a bigger pool, with his reasons (PSP outage, 100 RDS connections, worker exists)",
        "`sqlx migrate run` against the shared dev DB rejected with a rule; local container instead",
        "background `cargo test` failing with the SQLX_OFFLINE cache error in the middle of compiler output; `cargo sqlx prepare`",
        "the copied single-replica worker creating two payments (SKIP LOCKED); green background run and clippy",
        "open question on PSP idempotency keys and a todo for the frontend (Jana), don't merge before",
    ],
    "language": "de",
    "empty": False,
    "items": [
        {"id": "b1", "type": "bug_note",
         "match": [["PoolTimedOut", "pool timed out"], ["PSP", "create_payment"], ["Transaktion"]],
         "note": "Bei langsamem PSP lief der Pool leer: create_payment (bis 30 s) lief innerhalb der Checkout-Transaktion, 10 Verbindungen, alles andere bekam PoolTimedOut."},
        {"id": "b2", "type": "bug_note", "required": False,
         "match": [["health"], ["unwrap", "panic", "503"]],
         "note": "health machte unwrap auf acquire → Panic → 500 → Liveness-Probe → Neustart mitten in Checkouts; jetzt 503."},
        {"id": "d1", "type": "decision",
         "match": [["outbox"], ["pool", "100 connections", "hängt", "bestellservice"]],
         "note": "Outbox statt Pool vergrößern oder früher committen: Checkout soll bei hängendem PSP durchgehen, RDS hat nur 100 Verbindungen für alle Services, Worker gibt es im Bestellservice."},
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["dev-DB", "dev-db", "dev db"], ["pipeline"], ["migration"]],
         "note": "Keine Migrationen gegen die geteilte dev-DB (drei Teams), dort nur über die Pipeline; lokal den Container aus docker-compose nehmen."},
        {"id": "b3", "type": "bug_note",
         "match": [["SQLX_OFFLINE", "sqlx prepare", ".sqlx"]],
         "note": "SQLX_OFFLINE=true ist gesetzt: neue query!-Makros brauchen cargo sqlx prepare gegen die lokale DB, sonst kompiliert nichts."},
        {"id": "b4", "type": "bug_note",
         "match": [["SKIP LOCKED"], ["Replica", "zwei Zahlungen", "doppelt"]],
         "note": "Der übernommene Outbox-Worker war für eine Replica geschrieben; bei 3 Replicas legten zwei Worker dieselbe Zahlung an → FOR UPDATE SKIP LOCKED."},
        {"id": "q1", "type": "open_question",
         "match": [["idempotency"], ["unzer", "support"]],
         "note": "Unterstützt Unzer Idempotency-Keys (sonst Doppelzahlung nach Timeout-Retry)? Lukas fragt morgen beim Support."},
        {"id": "t1", "type": "todo",
         "match": [["Jana"], ["redirect_url"], ["merge", "frontend"]],
         "note": "Jana muss im Frontend die redirect_url aus dem Bestellstatus nehmen; vorher nicht mergen."},
        {"id": "v1", "type": "verified_command", "command": "cargo clippy --all-targets -- -D warnings"},
        {"id": "v2", "type": "verified_command", "command": "DATABASE_URL=postgres://postgres:postgres@localhost:5433/checkout cargo sqlx prepare -- --all-targets"},
        {"id": "v3", "type": "verified_command", "required": False, "command": "cargo test --all-targets"},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["doesn't want to proceed"]],
}
