# ruff: noqa: E501  (verbatim command output and file contents)
"""dbt on Postgres 14: fct_orders made incremental; MERGE fails, delete+insert; CDC duplicates (German)."""

from make_sessions import Session

FCT_ORDERS = '''{{ config(materialized='table') }}

select
    o.order_id,
    o.customer_id,
    o.ordered_at,
    o.updated_at,
    o.status,
    sum(i.quantity * i.unit_price_cents) as gross_cents,
    coalesce(sum(r.amount_cents), 0)     as refunded_cents
from {{ ref('stg_orders') }} o
join {{ ref('stg_order_items') }} i using (order_id)
left join {{ ref('stg_refunds') }} r using (order_id)
group by 1, 2, 3, 4, 5
'''

STG_ORDERS = '''select
    id            as order_id,
    customer_id,
    created_at    as ordered_at,
    updated_at,
    status
from {{ source('shop_cdc', 'orders') }}
'''

FCT_INCREMENTAL = '''{{
    config(
        materialized='incremental',
        unique_key='order_id',
        incremental_strategy='merge',
    )
}}

select
    o.order_id,
    o.customer_id,
    o.ordered_at,
    o.updated_at,
    o.status,
    sum(i.quantity * i.unit_price_cents) as gross_cents,
    coalesce(sum(r.amount_cents), 0)     as refunded_cents
from {{ ref('stg_orders') }} o
join {{ ref('stg_order_items') }} i using (order_id)
left join {{ ref('stg_refunds') }} r using (order_id)
{% if is_incremental() %}
where o.updated_at > (select max(updated_at) from {{ this }}) - interval '3 days'
{% endif %}
group by 1, 2, 3, 4, 5
'''


def build() -> Session:
    s = Session("dbt-incremental-de", cwd="/home/lukas/analytics/dwh-dbt", branch="feat/fct-orders-incremental",
                start="2026-01-20T08:47:19.204Z", version="2.1.29", slug="incremental-ledger-marten")
    s.user(
        "Morgen! fct_orders wird jede Nacht komplett neu gebaut und braucht inzwischen über 40 "
        "Minuten. Bitte inkrementell machen.\n\nZwei Sachen vorweg: auf Prod läuft niemals ein "
        "--full-refresh auf fct_orders, das blockiert die Tabelle die ganze Zeit und das "
        "Finance-Dashboard hängt. Und wir hängen wegen dem dbt-Cloud-Vertrag auf dbt 1.8 fest, "
        "also nichts aus 1.9 wie microbatch.",
        wait=5,
    )
    s.call(s.read_call("models/marts/fct_orders.sql", FCT_ORDERS), s.read_call("models/staging/stg_orders.sql", STG_ORDERS))
    s.bash("dbt --version 2>&1 | head -6", '''Core:
  - installed: 1.8.7
  - latest:    1.9.1 - Update available!

Plugins:
  - postgres: 1.8.2 - Update available!''', desc="dbt-Version")
    s.say(
        "dbt 1.8.7 mit dbt-postgres 1.8.2. Ich nehme `unique_key='order_id'` mit der "
        "`merge`-Strategie, damit geänderte Bestellungen (Status, Erstattungen) überschrieben "
        "werden, und lese im inkrementellen Lauf nur Zeilen, deren `updated_at` neuer ist als der "
        "Stand der Tabelle, mit etwas Puffer."
    )
    s.write("models/marts/fct_orders.sql", FCT_INCREMENTAL)
    s.bash("dbt run -s fct_orders --target dev 2>&1 | tail -4", '''08:53:40  1 of 1 START sql incremental model analytics_dev.fct_orders ................ [RUN]
08:53:58  1 of 1 OK created sql incremental model analytics_dev.fct_orders ........... [SELECT 1482210 in 17.92s]
08:53:58
08:53:58  Completed successfully''', desc="Erster Lauf (baut die Tabelle)", secs=22)
    s.bash("dbt run -s fct_orders --target dev 2>&1 | tail -8", '''08:54:31  1 of 1 START sql incremental model analytics_dev.fct_orders ................ [RUN]
08:54:33  1 of 1 ERROR creating sql incremental model analytics_dev.fct_orders ....... [ERROR in 1.41s]
08:54:33
08:54:33  Completed with 1 error, 0 partial successes, and 0 warnings:
08:54:33
08:54:33    Database Error in model fct_orders (models/marts/fct_orders.sql)
  syntax error at or near "merge"
  LINE 4:     merge into "dwh"."analytics_dev"."fct_orders" as DBT_INTERNAL_DEST''', desc="Zweiter Lauf (inkrementell)", secs=6)
    s.bash("psql \"$DWH_DEV_URL\" -Atc 'show server_version'", "14.11 (Debian 14.11-1.pgdg120+2)", desc="Postgres-Version")
    s.say(
        "Der erste Lauf baut nur die Tabelle, erst der zweite ist wirklich inkrementell — und der "
        "scheitert: `syntax error at or near \"merge\"`. Das DWH läuft auf Postgres 14.11, `MERGE` "
        "gibt es erst ab Postgres 15. dbt-postgres erzeugt das Statement trotzdem. Also "
        "`delete+insert`: löscht die betroffenen `order_id`s und fügt sie neu ein, das geht auf 14."
    )
    s.edit("models/marts/fct_orders.sql", "        incremental_strategy='merge',", "        incremental_strategy='delete+insert',")
    s.say("Bevor ich den Puffer festlege: wie spät können sich Bestellungen noch ändern?")
    q = "Wie weit zurück sollen inkrementelle Läufe geänderte Bestellungen nachladen?"
    s.ask(
        [{"question": q, "header": "Lookback",
          "options": [("3 Tage", "Deckt Statuswechsel und Versand ab"),
                      ("7 Tage", "Mehr Puffer, etwas längere Läufe")]}],
        {q: "Rückerstattungen kommen bis zu 14 Tage später rein, also 14 Tage. Und so Fachlogik bitte nicht raten, da immer Katrin vom Finance-Team fragen"},
    )
    s.edit("models/marts/fct_orders.sql", "where o.updated_at > (select max(updated_at) from {{ this }}) - interval '3 days'",
           "-- Erstattungen kommen bis zu 14 Tage später (Finance, Katrin)\nwhere o.updated_at > (select max(updated_at) from {{ this }}) - interval '14 days'")
    s.bash("dbt build -s fct_orders --target dev 2>&1 | tail -9", '''08:58:12  1 of 4 OK created sql incremental model analytics_dev.fct_orders ........... [INSERT 0 38211 in 6.02s]
08:58:12  2 of 4 START test not_null_fct_orders_order_id ............................. [RUN]
08:58:13  2 of 4 PASS not_null_fct_orders_order_id ................................... [PASS in 0.41s]
08:58:13  3 of 4 START test unique_fct_orders_order_id ............................... [RUN]
08:58:14  3 of 4 FAIL 212 unique_fct_orders_order_id ................................. [FAIL 212 in 0.77s]
08:58:14  4 of 4 PASS relationships_fct_orders_customer_id__customer_id__ref_dim_customers_ [PASS in 0.52s]
08:58:14
08:58:14  Completed with 1 error, 0 partial successes, and 0 warnings:
08:58:14    Failure in test unique_fct_orders_order_id (models/marts/schema.yml)''', desc="Build mit Tests", secs=14)
    s.bash("psql \"$DWH_DEV_URL\" -c \"select id, updated_at, status from shop_cdc.orders where id = (select order_id from analytics_dev.fct_orders group by 1 having count(*) > 1 limit 1) order by updated_at\"", ''' id     |         updated_at         |  status
--------+----------------------------+----------
 918273 | 2026-01-18 10:02:11.4+00   | paid
 918273 | 2026-01-19 16:40:55.9+00   | refunded
(2 rows)''', desc="Doppelte order_id ansehen")
    s.say(
        "Der Unique-Test schlägt mit 212 doppelten `order_id`s fehl. Das ist kein Problem der "
        "Inkrementlogik: `shop_cdc.orders` ist der CDC-Stream und enthält pro Änderung eine neue "
        "Zeile, `stg_orders` reicht alle Versionen durch. Mit `delete+insert` landen dann beide "
        "Versionen im Insert. Die Vollversion hatte das auch, nur fiel es durch das `group by` "
        "zusammen mit unterschiedlichem Status nie auf. Fix gehört in `stg_orders`: nur die "
        "jüngste Version je Bestellung (`row_number()` nach `updated_at desc`)."
    )
    s.write("models/staging/stg_orders.sql", '''-- shop_cdc.orders hat eine Zeile pro Änderung: nur die jüngste Version je Bestellung.
with versions as (
    select
        id            as order_id,
        customer_id,
        created_at    as ordered_at,
        updated_at,
        status,
        row_number() over (partition by id order by updated_at desc) as version_rank
    from {{ source('shop_cdc', 'orders') }}
)

select order_id, customer_id, ordered_at, updated_at, status
from versions
where version_rank = 1
''')
    s.bash("dbt build -s stg_orders+ --target dev 2>&1 | tail -4", '''09:01:02  Finished running 3 view models, 1 incremental model, 9 data tests in 0 hours 0 minutes and 24.81 seconds (24.81s).
09:01:02
09:01:02  Completed successfully
09:01:02  Done. PASS=13 WARN=0 ERROR=0 SKIP=0 TOTAL=13''', desc="Build ab stg_orders", secs=28)
    s.bash("sqlfluff lint models/marts/fct_orders.sql models/staging/stg_orders.sql", "All Finished 📜 🎉!", desc="SQL-Lint", secs=8)
    s.say(
        "Fertig, alles grün (13/13):\n\n"
        "- `fct_orders` ist inkrementell mit `delete+insert` auf `order_id` (kein `merge`, weil "
        "Postgres 14 kein `MERGE` kann) und lädt 14 Tage zurück nach, wegen der späten "
        "Rückerstattungen.\n"
        "- `stg_orders` nimmt nur noch die jüngste CDC-Version je Bestellung — das hat die 212 "
        "Duplikate behoben.\n"
        "- Inkrementeller Lauf auf dev: 6 s statt 40 min Neuaufbau.\n\n"
        "Offen: Löscht der Shop Bestellungen hart (hard deletes)? Mit `delete+insert` fällt eine "
        "gelöschte Bestellung nie aus `fct_orders` raus, sie kommt ja nicht mehr im Stream vor. "
        "Falls das vorkommt, bräuchten wir die Delete-Events aus dem CDC."
    )
    s.turn_end()
    s.user(
        "Hard deletes gibt's meines Wissens nicht, aber frag ich Katrin. Den ersten Aufbau auf Prod "
        "mach ich selbst am Sonntag im Wartungsfenster, da ist das Dashboard eh aus.",
        wait=160,
    )
    s.say("Alles klar — ich fasse Prod nicht an.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "dbt 1.8 on Postgres 14 (incremental model, CDC staging), German",
        "two rules with reasons in the first prompt (no --full-refresh on prod; dbt 1.8 pinned by the dbt Cloud contract)",
        "merge strategy failing on the second (truly incremental) run behind `| tail`, then delete+insert",
        "AskUserQuestion answered in free text with a fact (14 days) and a preference (ask Katrin, don't guess)",
        "unique test failing behind `| tail` (CDC duplicates), fixed in the staging model",
        "open question (hard deletes) and a todo the user takes on (initial prod build on Sunday)",
    ],
    "language": "de",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["full-refresh"], ["Finance", "blockiert"]],
         "note": "Auf Prod niemals --full-refresh auf fct_orders: blockiert die Tabelle über 40 Minuten, das Finance-Dashboard hängt."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["1.8"], ["microbatch", "dbt-Cloud", "dbt Cloud"]],
         "note": "dbt bleibt wegen des dbt-Cloud-Vertrags auf 1.8; nichts aus 1.9 wie microbatch."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "bug_note"],
         "match": [["merge"], ["Postgres 14", "syntax error", "Postgres 15"]],
         "note": "incremental_strategy='merge' scheiterte im inkrementellen Lauf (syntax error at or near \"merge\"): Postgres 14 hat kein MERGE."},
        {"id": "d1", "type": "decision",
         "match": [["delete+insert"], ["Postgres 14", "MERGE", "merge"]],
         "note": "fct_orders ist inkrementell mit delete+insert auf order_id, weil das DWH auf Postgres 14 kein MERGE kann."},
        {"id": "d2", "type": "decision", "types": ["decision", "constraint", "project_fact"],
         "match": [["14 Tage", "14 days"], ["Rückerstattung", "Erstattung"]],
         "note": "Inkrementelle Läufe laden 14 Tage zurück nach, weil Rückerstattungen bis zu 14 Tage später kommen."},
        {"id": "p1", "type": "preference", "types": ["preference", "constraint"],
         "match": [["Katrin"], ["raten", "Finance"]],
         "note": "Fachlogik nicht raten, immer Katrin vom Finance-Team fragen."},
        {"id": "b1", "type": "bug_note",
         "match": [["unique", "Duplikat", "doppelt"], ["row_number", "stg_orders", "CDC"]],
         "note": "unique_fct_orders_order_id schlug mit 212 Duplikaten fehl: shop_cdc.orders hat eine Zeile pro Änderung; stg_orders nimmt jetzt nur die jüngste Version (row_number)."},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["hard delete", "gelöscht"], ["delete+insert", "fct_orders", "Katrin"]],
         "note": "Gibt es Hard Deletes im Shop? Mit delete+insert fiele eine gelöschte Bestellung nie aus fct_orders raus; Lukas fragt Katrin."},
        {"id": "t1", "type": "todo",
         "match": [["Sonntag", "Wartungsfenster"], ["Prod"]],
         "note": "Den ersten Aufbau auf Prod macht Lukas selbst am Sonntag im Wartungsfenster."},
        {"id": "v1", "type": "verified_command", "command": "dbt build -s stg_orders+ --target dev"},
        {"id": "v3", "type": "verified_command", "required": False, "command": "dbt run -s fct_orders --target dev"},
        {"id": "v2", "type": "verified_command",
         "command": "sqlfluff lint models/marts/fct_orders.sql models/staging/stg_orders.sql"},
    ],
    "secrets": [],
    "forbidden": [["User has answered"]],
}
