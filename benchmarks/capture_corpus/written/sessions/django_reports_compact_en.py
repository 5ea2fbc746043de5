# ruff: noqa: E501  (verbatim command output and file contents)
"""Django revenue report: N+1, a cache that was rejected, a materialized view; compacted midway."""

from make_sessions import Session

VIEW = '''from django.contrib.auth.decorators import permission_required
from django.shortcuts import render

from orders.models import Order

from .forms import ReportFilterForm


@permission_required("reports.view_revenue")
def monthly_revenue(request):
    form = ReportFilterForm(request.GET or None)
    orders = Order.objects.filter(status=Order.Status.PAID)
    if form.is_valid():
        orders = orders.filter(paid_at__year=form.cleaned_data["year"])
    rows = {}
    for order in orders:
        key = (order.paid_at.strftime("%Y-%m"), order.customer.region.name)
        row = rows.setdefault(key, {"month": key[0], "region": key[1], "orders": 0, "revenue": 0})
        row["orders"] += 1
        row["revenue"] += sum(line.total for line in order.lines.all())
    return render(request, "reports/monthly_revenue.html", {"form": form, "rows": sorted(rows.values(), key=lambda r: (r["month"], r["region"]))})
'''

TEST = '''import pytest
from django.urls import reverse

from orders.tests.factories import PaidOrderFactory


@pytest.mark.django_db
def test_monthly_revenue_groups_by_month_and_region(admin_client):
    PaidOrderFactory.create_batch(3, paid_at="2026-01-15T10:00Z", customer__region__name="North", lines__total=100)
    PaidOrderFactory(paid_at="2026-02-01T09:00Z", customer__region__name="South", lines__total=50)

    resp = admin_client.get(reverse("reports:monthly-revenue"), {"year": 2026})

    rows = resp.context["rows"]
    assert [(r["month"], r["region"], r["orders"], r["revenue"]) for r in rows] == [
        ("2026-01", "North", 3, 300),
        ("2026-02", "South", 1, 50),
    ]
'''

QUERY_TEST = '''

@pytest.mark.django_db
def test_monthly_revenue_query_count_does_not_grow_with_orders(admin_client, django_assert_max_num_queries):
    PaidOrderFactory.create_batch(200, paid_at="2026-03-03T10:00Z", lines__total=10)
    with django_assert_max_num_queries(8):
        admin_client.get(reverse("reports:monthly-revenue"), {"year": 2026})
'''

MIGRATION = '''from django.db import migrations

CREATE = """
CREATE MATERIALIZED VIEW reports_monthly_revenue_mv AS
SELECT to_char(date_trunc('month', o.paid_at AT TIME ZONE 'UTC'), 'YYYY-MM') AS month,
       r.name AS region,
       count(DISTINCT o.id) AS orders,
       coalesce(sum(l.total), 0) AS revenue
FROM orders_order o
JOIN customers_customer c ON c.id = o.customer_id
JOIN customers_region r ON r.id = c.region_id
LEFT JOIN orders_orderline l ON l.order_id = o.id
WHERE o.status = 'paid'
GROUP BY 1, 2;
"""

DROP = "DROP MATERIALIZED VIEW IF EXISTS reports_monthly_revenue_mv;"


class Migration(migrations.Migration):
    dependencies = [("reports", "0003_reportcache"), ("orders", "0021_orderline_total_index")]

    operations = [migrations.RunSQL(CREATE, DROP)]
'''

COMMAND = '''"""Refreshes the revenue report's materialized view. Run by cron every 15 minutes."""

from django.core.management.base import BaseCommand
from django.db import connection

from reports.sql import REFRESH


class Command(BaseCommand):
    help = "Refresh reports_monthly_revenue_mv without blocking readers."

    def handle(self, *args, **options):
        # CONCURRENTLY keeps the report readable during the refresh and is safe to
        # run twice in a row, so the cron wrapper's retries can't do harm.
        with connection.cursor() as cur:
            cur.execute(REFRESH)
        self.stdout.write(self.style.SUCCESS("reports_monthly_revenue_mv refreshed"))
'''

SUMMARY = '''Analysis:
The conversation is about making the Django monthly revenue report (`reports/views.py::monthly_revenue`) fast. I profiled it, fixed an N+1, tried a per-process cache that the user rejected, and moved the aggregation into a Postgres materialized view. Work was in progress on the refresh command when the context ran out.

Summary:
1. Primary Request and Intent:
   The user asked to make the monthly revenue report render fast (it took ~40 s in production for 2025-2026 data). Constraints they gave: no Redis ("ops won't run another stateful service"), and data up to 15 minutes old is acceptable for this report. Later they rejected a per-process cache because different gunicorn workers would show different numbers on refresh.

2. Key Technical Concepts:
   - Django ORM N+1 (order.customer.region, order.lines) fixed with select_related/prefetch_related
   - pytest-django `django_assert_max_num_queries`
   - Django LocMemCache is per process (8 gunicorn workers -> 8 caches)
   - Postgres materialized view + REFRESH MATERIALIZED VIEW CONCURRENTLY (needs a unique index)
   - `migrations.RunSQL` with reverse SQL

3. Files and Code Sections:
   - `reports/views.py`: `monthly_revenue` now reads from the `MonthlyRevenue` unmanaged model over `reports_monthly_revenue_mv` (filter by year prefix on `month`).
   - `reports/models.py`: added `MonthlyRevenue` (managed = False, db_table = "reports_monthly_revenue_mv").
   - `reports/migrations/0004_monthly_revenue_mv.py`: RunSQL creating the MV, plus `CREATE UNIQUE INDEX reports_monthly_revenue_mv_month_region ON reports_monthly_revenue_mv (month, region)`.
   - `reports/sql.py`: `REFRESH = "REFRESH MATERIALIZED VIEW CONCURRENTLY reports_monthly_revenue_mv"`.
   - `reports/tests/test_monthly_revenue.py`: added the query-count test (max 8 queries for 200 orders).

4. Errors and fixes:
   - Query-count test failed with "Expected to perform 8 queries or less but 603 were done" -> added `select_related("customer__region")` and `prefetch_related("lines")`; then 5 queries.
   - Per-process cache (`@cache_page(60 * 15)` with LocMemCache): user rejected it — each of the 8 gunicorn workers caches separately, so refreshing the page can show different totals; reverted.
   - `REFRESH MATERIALIZED VIEW CONCURRENTLY` failed: "cannot refresh materialized view "public.reports_monthly_revenue_mv" concurrently. HINT: Create a unique index with no WHERE clause on one or more columns of the materialized view." -> added the unique index on (month, region) in migration 0004.

5. Problem Solving:
   Report now reads ~60 pre-aggregated rows instead of iterating over ~180k orders; locally the page went from 38 s to 120 ms. Remaining: the refresh must be scheduled.

6. All user messages:
   - "the monthly revenue report takes 40s to render in prod, can you make it fast? we're on postgres 15. no redis please, ops won't run another stateful service"
   - "15 minutes stale is fine for this report, finance looks at it once a day. but wait, LocMemCache — we run 8 gunicorn workers. isn't that a cache per worker?"
   - "no, per-process cache means people see different numbers when they refresh. finance will lose their minds. take it out"
   - "ok mat view sounds good, go"

7. Pending Tasks:
   - Management command `refresh_revenue_mv` and a cron entry every 15 minutes.
   - Make the test database have the materialized view (tests run with `--nomigrations`).
   - Run the full suite.

8. Current Work:
   Was about to write `reports/management/commands/refresh_revenue_mv.py` using `reports.sql.REFRESH`.

9. Optional Next Step:
   Write the management command, add the cron line to `deploy/crontab`, then run `DJANGO_SETTINGS_MODULE=config.settings.test pytest reports -q`.

If you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: /home/priya/.claude/projects/-home-priya-work-ledgerly/0c9f3e52-6f1d-4a55-9b7e-2f7d1e0a3c11.jsonl
Please continue the conversation from where we left off without asking the user any further questions. Continue with the last task that you were asked to work on.'''


def build() -> Session:
    s = Session("django-reports-compact-en", cwd="/home/priya/work/ledgerly", branch="perf/revenue-report",
                start="2026-02-24T10:03:57.402Z", version="2.1.39", slug="keen-sifting-badger",
                permission_mode="acceptEdits")
    s.user("the monthly revenue report takes 40s to render in prod, can you make it fast? we're "
           "on postgres 15. no redis please, ops won't run another stateful service", wait=3)
    s.think("Start with the view, the template, and the existing tests.")
    s.call(s.read_call("reports/views.py", VIEW),
           s.read_call("reports/tests/test_monthly_revenue.py", TEST))
    s.grep("order\\.|row\\.", content="reports/templates/reports/monthly_revenue.html:14:    {% for row in rows %}\nreports/templates/reports/monthly_revenue.html:16:      <td>{{ row.month }}</td><td>{{ row.region }}</td><td>{{ row.orders }}</td><td>{{ row.revenue|floatformat:2 }}</td>",
           path="reports/templates")
    s.say(
        "The template is fine (it only touches the aggregated `rows`); the time goes into the "
        "Python loop in the view. For every paid order it does `order.customer.region.name` "
        "(two lazy lookups) and `order.lines.all()` (one more query) — three queries per order. "
        "With ~180k paid orders a year that's the 40 s.\n\nFirst a test that pins the query "
        "count, so this can't silently regress:"
    )
    s.edit("reports/tests/test_monthly_revenue.py", '''        ("2026-02", "South", 1, 50),
    ]
''', '''        ("2026-02", "South", 1, 50),
    ]
''' + QUERY_TEST)
    s.bash("DJANGO_SETTINGS_MODULE=config.settings.test pytest reports -q 2>&1 | tail -15", """\
.F                                                                       [100%]
=================================== FAILURES ===================================
___________ test_monthly_revenue_query_count_does_not_grow_with_orders ___________
reports/tests/test_monthly_revenue.py:27: in test_monthly_revenue_query_count_does_not_grow_with_orders
    with django_assert_max_num_queries(8):
E   Failed: Expected to perform 8 queries or less but 603 were done (add -v option to show queries)
=========================== short test summary info ============================
FAILED reports/tests/test_monthly_revenue.py::test_monthly_revenue_query_count_does_not_grow_with_orders
1 failed, 1 passed in 3.84s""", desc="Run report tests", secs=6.0)
    s.say("603 queries for 200 orders, as expected. `select_related` for the customer's region "
          "and `prefetch_related` for the lines:")
    s.edit("reports/views.py", '''    orders = Order.objects.filter(status=Order.Status.PAID)''',
           '''    orders = (
        Order.objects.filter(status=Order.Status.PAID)
        .select_related("customer__region")
        .prefetch_related("lines")
    )''')
    s.bash("DJANGO_SETTINGS_MODULE=config.settings.test pytest reports -q 2>&1 | tail -15", """\
..                                                                       [100%]
2 passed in 3.12s""", desc="Run report tests", secs=5.0)
    s.bash("DJANGO_SETTINGS_MODULE=config.settings.local python manage.py shell -c \"import time; from django.test import Client; from django.contrib.auth import get_user_model; c = Client(); c.force_login(get_user_model().objects.get(username='priya')); t = time.perf_counter(); r = c.get('/reports/monthly-revenue/?year=2025'); print(r.status_code, round(time.perf_counter() - t, 2))\"",
           "200 9.41", desc="Time the report on the local copy of prod data", secs=11.0)
    s.say(
        "From 38 s to 9.4 s on the local prod copy (182k paid orders for 2025). Still slow: "
        "now it's Python summing 700k order lines. The quickest way to make repeated views "
        "instant is caching the rendered page for a while — Django's cache framework is already "
        "configured (`LocMemCache`), so no new service is needed:"
    )
    s.edit("reports/views.py", '''@permission_required("reports.view_revenue")
def monthly_revenue(request):''', '''@permission_required("reports.view_revenue")
@cache_page(60 * 15)
def monthly_revenue(request):''')
    s.edit("reports/views.py", '''from django.shortcuts import render''', '''from django.shortcuts import render
from django.views.decorators.cache import cache_page''')
    s.say("Cached for 15 minutes per URL. Is data up to 15 minutes old acceptable for this report?")
    s.turn_end()
    s.user("15 minutes stale is fine for this report, finance looks at it once a day. but wait, "
           "LocMemCache — we run 8 gunicorn workers. isn't that a cache per worker?", wait=90)
    s.say(
        "Yes — `LocMemCache` lives inside each process, so with 8 workers there are 8 "
        "independent caches. Each one fills at a different moment, so two consecutive page loads "
        "can hit different workers and show totals that are up to 15 minutes apart."
    )
    s.turn_end()
    s.user("no, per-process cache means people see different numbers when they refresh. finance "
           "will lose their minds. take it out", wait=35)
    s.say("Taking the cache out.")
    s.edit("reports/views.py", '''@permission_required("reports.view_revenue")
@cache_page(60 * 15)
def monthly_revenue(request):''', '''@permission_required("reports.view_revenue")
def monthly_revenue(request):''')
    s.edit("reports/views.py", '''from django.shortcuts import render
from django.views.decorators.cache import cache_page''', '''from django.shortcuts import render''')
    s.say(
        "A version that is both fast and consistent across workers: let Postgres hold the "
        "aggregate. A materialized view with one row per (month, region) — about 60 rows — "
        "refreshed every 15 minutes (your staleness budget) with `REFRESH MATERIALIZED VIEW "
        "CONCURRENTLY`, which doesn't block readers. Every worker reads the same rows, there's "
        "no new service, and the view becomes a plain `SELECT`. The cost is a migration with raw "
        "SQL and a cron job. Want me to go that way?"
    )
    s.turn_end()
    s.user("ok mat view sounds good, go", wait=40)
    s.write("reports/migrations/0004_monthly_revenue_mv.py", MIGRATION)
    s.read("reports/models.py", '''from django.db import models


class ReportCache(models.Model):
    """Legacy: rendered report blobs from the 2023 exporter. Nothing writes here anymore."""

    key = models.CharField(max_length=200, unique=True)
    payload = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
''')
    s.edit("reports/models.py", '''    created_at = models.DateTimeField(auto_now_add=True)
''', '''    created_at = models.DateTimeField(auto_now_add=True)


class MonthlyRevenue(models.Model):
    """One row per (month, region), from the materialized view refreshed by cron."""

    month = models.CharField(max_length=7, primary_key=True)
    region = models.CharField(max_length=100)
    orders = models.IntegerField()
    revenue = models.DecimalField(max_digits=14, decimal_places=2)

    class Meta:
        managed = False
        db_table = "reports_monthly_revenue_mv"
''')
    s.write("reports/sql.py", '''REFRESH = "REFRESH MATERIALIZED VIEW CONCURRENTLY reports_monthly_revenue_mv"
''')
    s.edit("reports/views.py", '''from orders.models import Order

from .forms import ReportFilterForm''', '''from .forms import ReportFilterForm
from .models import MonthlyRevenue''')
    s.edit("reports/views.py", '''    orders = (
        Order.objects.filter(status=Order.Status.PAID)
        .select_related("customer__region")
        .prefetch_related("lines")
    )
    if form.is_valid():
        orders = orders.filter(paid_at__year=form.cleaned_data["year"])
    rows = {}
    for order in orders:
        key = (order.paid_at.strftime("%Y-%m"), order.customer.region.name)
        row = rows.setdefault(key, {"month": key[0], "region": key[1], "orders": 0, "revenue": 0})
        row["orders"] += 1
        row["revenue"] += sum(line.total for line in order.lines.all())
    return render(request, "reports/monthly_revenue.html", {"form": form, "rows": sorted(rows.values(), key=lambda r: (r["month"], r["region"]))})''',
           '''    rows = MonthlyRevenue.objects.order_by("month", "region")
    if form.is_valid():
        rows = rows.filter(month__startswith=f'{form.cleaned_data["year"]}-')
    return render(request, "reports/monthly_revenue.html", {"form": form, "rows": rows.values()})''')
    s.bash("DJANGO_SETTINGS_MODULE=config.settings.local python manage.py migrate reports 2>&1 | tail -5", """\
Operations to perform:
  Apply all migrations: reports
Running migrations:
  Applying reports.0004_monthly_revenue_mv... OK""", desc="Apply the migration locally", secs=14.0)
    s.bash("DJANGO_SETTINGS_MODULE=config.settings.local python manage.py dbshell -- -c 'REFRESH MATERIALIZED VIEW CONCURRENTLY reports_monthly_revenue_mv;'", """\
ERROR:  cannot refresh materialized view "public.reports_monthly_revenue_mv" concurrently
HINT:  Create a unique index with no WHERE clause on one or more columns of the materialized view.""",
           code=1, desc="Try a concurrent refresh", secs=3.0)
    s.say(
        "`CONCURRENTLY` needs a unique index on the view to diff old and new rows. (month, "
        "region) is unique by construction. Since 0004 is only applied on my machine, I'll add "
        "the index to it and re-apply rather than stack a 0005."
    )
    s.bash("DJANGO_SETTINGS_MODULE=config.settings.local python manage.py migrate reports 0003 2>&1 | tail -3",
           "Running migrations:\n  Unapplying reports.0004_monthly_revenue_mv... OK", desc="Roll back 0004 locally")
    s.edit("reports/migrations/0004_monthly_revenue_mv.py", '''GROUP BY 1, 2;
"""''', '''GROUP BY 1, 2;

-- REFRESH ... CONCURRENTLY needs a unique index without WHERE clause.
CREATE UNIQUE INDEX reports_monthly_revenue_mv_month_region
    ON reports_monthly_revenue_mv (month, region);
"""''')
    s.bash("DJANGO_SETTINGS_MODULE=config.settings.local python manage.py migrate reports && DJANGO_SETTINGS_MODULE=config.settings.local python manage.py dbshell -- -c 'REFRESH MATERIALIZED VIEW CONCURRENTLY reports_monthly_revenue_mv;' 2>&1 | tail -5",
           "Operations to perform:\n  Apply all migrations: reports\nRunning migrations:\n  Applying reports.0004_monthly_revenue_mv... OK\nREFRESH MATERIALIZED VIEW",
           desc="Re-apply and refresh", secs=16.0)
    s.bash("DJANGO_SETTINGS_MODULE=config.settings.local python manage.py shell -c \"import time; from django.test import Client; from django.contrib.auth import get_user_model; c = Client(); c.force_login(get_user_model().objects.get(username='priya')); t = time.perf_counter(); r = c.get('/reports/monthly-revenue/?year=2025'); print(r.status_code, round(time.perf_counter() - t, 2))\"",
           "200 0.12", desc="Time the report again", secs=4.0)
    s.say("0.12 s, down from 38 s. Next: the refresh command for cron.")
    s.compact(SUMMARY, pre_tokens=168412)
    s.blank()
    s.think("Continue: write the management command, add cron, fix tests (--nomigrations).")
    s.call(s.write_call("reports/management/commands/refresh_revenue_mv.py", COMMAND),
           s.write_call("reports/management/__init__.py", ""),
           s.write_call("reports/management/commands/__init__.py", ""))
    s.read("deploy/crontab", '''# m h dom mon dow  command   (run as app user via deploy/cron-wrapper, which retries twice)
*/5 * * * *  /srv/ledgerly/deploy/cron-wrapper manage.py sync_bank_feeds
0 3 * * *    /srv/ledgerly/deploy/cron-wrapper manage.py purge_sessions
''')
    s.edit("deploy/crontab", '''0 3 * * *    /srv/ledgerly/deploy/cron-wrapper manage.py purge_sessions
''', '''0 3 * * *    /srv/ledgerly/deploy/cron-wrapper manage.py purge_sessions
*/15 * * * * /srv/ledgerly/deploy/cron-wrapper manage.py refresh_revenue_mv
''')
    s.bash("DJANGO_SETTINGS_MODULE=config.settings.test pytest reports -q 2>&1 | tail -15", """\
EE                                                                       [100%]
==================================== ERRORS ====================================
_______ ERROR at setup of test_monthly_revenue_groups_by_month_and_region ______
...
E   django.db.utils.ProgrammingError: relation "reports_monthly_revenue_mv" does not exist
E   LINE 1: ...onthly_revenue_mv"."revenue" FROM "reports_monthly_revenue_mv" ...
=========================== short test summary info ============================
ERROR reports/tests/test_monthly_revenue.py::test_monthly_revenue_groups_by_month_and_region - django.db.utils.ProgrammingError: relation "reports_monthly_revenue_mv" does not exist
ERROR reports/tests/test_monthly_revenue.py::test_monthly_revenue_query_count_does_not_grow_with_orders - django.db.utils.ProgrammingError: relation "reports_monthly_revenue_mv" does not exist
2 errors in 2.71s""", desc="Run report tests", secs=5.0)
    s.bash("grep -n addopts pytest.ini", "3:addopts = --nomigrations --reuse-db", desc="Check pytest options")
    s.say(
        "As noted before the break: tests run with `--nomigrations`, which builds tables from "
        "the models, and `MonthlyRevenue` is unmanaged — so the view never exists in the test "
        "database. Dropping `--nomigrations` would make every test run replay 140 migrations. "
        "Instead a session fixture runs the migration's own `CREATE` SQL, so the SQL lives in "
        "one place; the report tests refresh the view after inserting their orders."
    )
    s.read("conftest.py", '''import pytest


@pytest.fixture(autouse=True)
def _media_tmp(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
''')
    s.edit("conftest.py", '''import pytest
''', '''import importlib

import pytest
from django.db import connection

_mv = importlib.import_module("reports.migrations.0004_monthly_revenue_mv")


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    # Tests run with --nomigrations; the report's materialized view only exists in a
    # migration, so create it from the migration's own SQL.
    with django_db_blocker.unblock(), connection.cursor() as cur:
        cur.execute(_mv.DROP)
        cur.execute(_mv.CREATE)


@pytest.fixture
def refresh_revenue_mv(db):
    def refresh():
        with connection.cursor() as cur:
            cur.execute("REFRESH MATERIALIZED VIEW reports_monthly_revenue_mv")
    return refresh
''')
    s.edit("reports/tests/test_monthly_revenue.py", '''def test_monthly_revenue_groups_by_month_and_region(admin_client):
    PaidOrderFactory.create_batch(3, paid_at="2026-01-15T10:00Z", customer__region__name="North", lines__total=100)
    PaidOrderFactory(paid_at="2026-02-01T09:00Z", customer__region__name="South", lines__total=50)
''', '''def test_monthly_revenue_groups_by_month_and_region(admin_client, refresh_revenue_mv):
    PaidOrderFactory.create_batch(3, paid_at="2026-01-15T10:00Z", customer__region__name="North", lines__total=100)
    PaidOrderFactory(paid_at="2026-02-01T09:00Z", customer__region__name="South", lines__total=50)
    refresh_revenue_mv()
''')
    s.edit("reports/tests/test_monthly_revenue.py", '''def test_monthly_revenue_query_count_does_not_grow_with_orders(admin_client, django_assert_max_num_queries):
    PaidOrderFactory.create_batch(200, paid_at="2026-03-03T10:00Z", lines__total=10)
''', '''def test_monthly_revenue_query_count_does_not_grow_with_orders(admin_client, django_assert_max_num_queries, refresh_revenue_mv):
    PaidOrderFactory.create_batch(200, paid_at="2026-03-03T10:00Z", lines__total=10)
    refresh_revenue_mv()
''')
    s.bash("DJANGO_SETTINGS_MODULE=config.settings.test pytest reports -q --create-db 2>&1 | tail -15", """\
..                                                                       [100%]
2 passed in 4.02s""", desc="Run report tests with a fresh test DB", secs=9.0)
    s.edit("reports/tests/test_monthly_revenue.py", '''        admin_client.get(reverse("reports:monthly-revenue"), {"year": 2026})
''', '''        admin_client.get(reverse("reports:monthly-revenue"), {"year": 2026})


@pytest.mark.django_db
def test_refresh_command_is_safe_to_run_twice(refresh_revenue_mv):
    from django.core.management import call_command

    refresh_revenue_mv()  # CONCURRENTLY needs a populated view
    call_command("refresh_revenue_mv")
    call_command("refresh_revenue_mv")
''')
    s.bash("DJANGO_SETTINGS_MODULE=config.settings.test pytest reports -q 2>&1 | tail -15", """\
...                                                                      [100%]
3 passed in 3.37s""", desc="Run report tests", secs=6.0)
    s.bash("DJANGO_SETTINGS_MODULE=config.settings.test pytest -q -x 2>&1 | tail -4", """\
........................................................................ [ 93%]
.....                                                                    [100%]
437 passed, 2 skipped in 61.20s (0:01:01)""", desc="Full suite", secs=68.0)
    s.bash("ruff check reports conftest.py && python manage.py makemigrations --check --dry-run", """\
All checks passed!
No changes detected""", desc="Lint and check for missing migrations", secs=6.0)
    s.say(
        "Done. The monthly revenue report now reads a materialized view:\n\n"
        "- `reports/migrations/0004_monthly_revenue_mv.py` creates `reports_monthly_revenue_mv` "
        "(one row per month and region) with the unique index `CONCURRENTLY` needs; "
        "`MonthlyRevenue` is an unmanaged model over it and the view is a plain query.\n"
        "- `manage.py refresh_revenue_mv` refreshes it concurrently (readers never block, safe "
        "to run twice), scheduled every 15 minutes in `deploy/crontab` — your staleness budget.\n"
        "- Locally 38 s → 0.12 s for 2025. Tests create the view from the migration's SQL "
        "(`conftest.py`), 437 passed, ruff clean, no missing migrations.\n\n"
        "Before merging:\n"
        "- The first deploy must run `refresh_revenue_mv` once right after `migrate`, otherwise "
        "the report is empty until the first cron tick (up to 15 minutes).\n"
        "- Nothing alerts if the refresh starts failing — the report would silently go stale. "
        "A Grafana alert on the view's age (or on the cron wrapper's exit code) would cover it.\n"
        "- `ReportCache` in `reports/models.py` is dead (nothing writes to it since 2023); it "
        "could be dropped in a follow-up migration."
    )
    s.turn_end()
    s.user("great. add the post-migrate refresh to the deploy script and I'll handle the alert "
           "with ops. leave ReportCache for now", wait=120)
    s.read("deploy/release.sh", '''#!/usr/bin/env bash
set -euo pipefail
cd /srv/ledgerly
./venv/bin/python manage.py migrate --noinput
./venv/bin/python manage.py collectstatic --noinput
sudo systemctl reload ledgerly
''')
    s.edit("deploy/release.sh", '''./venv/bin/python manage.py migrate --noinput
''', '''./venv/bin/python manage.py migrate --noinput
# The revenue report reads a materialized view; fill it now rather than at the next cron tick.
./venv/bin/python manage.py refresh_revenue_mv
''')
    s.bash("bash -n deploy/release.sh && shellcheck deploy/release.sh", "", desc="Check the script")
    s.say("Added to `deploy/release.sh` right after `migrate`; the script passes `bash -n` and "
          "shellcheck. The alert stays with you and ops, and `ReportCache` stays.")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "long session (118 entries) with compact_boundary and an isCompactSummary entry",
        "rules in prompts (no Redis, 15 minutes stale ok)",
        "N+1 fixed with a query-count test",
        "cache approach rejected by the user and reverted",
        "decision with its why (materialized view)",
        "Postgres error then migration fixed",
        "failure after compaction fixed (--nomigrations)",
        "todos and a user-owned follow-up at the end",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["redis"], ["ops", "stateful"]],
         "note": "No Redis: ops won't run another stateful service."},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference", "project_fact"],
         "match": [["15 minutes"], ["stale"]],
         "note": "Data up to 15 minutes stale is fine for the revenue report (finance looks once a day)."},
        {"id": "b1", "type": "bug_note",
         "match": [["select_related", "prefetch_related", "N+1"], ["queries", "603"]],
         "note": "The report did 3 queries per order (customer.region, lines): 603 queries for 200 "
                 "orders; select_related/prefetch_related brought it to a handful."},
        {"id": "f1", "type": "failed_attempt",
         "match": [["LocMemCache", "cache_page", "per-process cache", "cache per worker"],
                   ["worker", "different numbers"]],
         "note": "Caching the page with cache_page/LocMemCache was rejected: with 8 gunicorn "
                 "workers each has its own cache and users see different numbers on refresh."},
        {"id": "d1", "type": "decision",
         "match": [["materialized view", "reports_monthly_revenue_mv"],
                   ["CONCURRENTLY", "15 minutes", "every worker", "no new service"]],
         "note": "The report reads a Postgres materialized view (one row per month and region) "
                 "refreshed CONCURRENTLY every 15 minutes: consistent across workers, no Redis."},
        {"id": "b2", "type": "bug_note",
         "match": [["CONCURRENTLY"], ["unique index"]],
         "note": "REFRESH MATERIALIZED VIEW CONCURRENTLY fails without a unique index; added one "
                 "on (month, region)."},
        {"id": "d2", "type": "decision", "types": ["decision", "bug_note"],
         "match": [["--nomigrations", "nomigrations"], ["fixture", "conftest"]],
         "note": "Tests run with --nomigrations, so a session fixture in conftest.py creates the "
                 "view from the migration's own SQL instead of replaying 140 migrations."},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["refresh_revenue_mv"], ["crontab", "cron"]],
         "note": "manage.py refresh_revenue_mv runs every 15 minutes from deploy/crontab and "
                 "once after migrate in deploy/release.sh."},
        {"id": "t1", "type": "todo",
         "match": [["alert"], ["refresh", "stale"]],
         "note": "Nothing alerts if the view refresh fails; an alert on the view's age is "
                 "pending (user handles it with ops)."},
        {"id": "t2", "type": "todo", "required": False,
         "match": [["ReportCache"]],
         "note": "ReportCache is dead and could be dropped later; the user said to leave it for now."},
        {"id": "v1", "type": "verified_command",
         "command": "DJANGO_SETTINGS_MODULE=config.settings.test pytest reports -q"},
        {"id": "v2", "type": "verified_command",
         "command": "DJANGO_SETTINGS_MODULE=config.settings.test pytest -q -x"},
        {"id": "v3", "type": "verified_command",
         "command": "ruff check reports conftest.py && python manage.py makemigrations --check --dry-run"},
        {"id": "v4", "type": "verified_command", "required": False,
         "command": "DJANGO_SETTINGS_MODULE=config.settings.test pytest reports -q --create-db"},
        {"id": "v7", "type": "verified_command", "required": False,
         "command": "DJANGO_SETTINGS_MODULE=config.settings.local python manage.py migrate reports && DJANGO_SETTINGS_MODULE=config.settings.local python manage.py dbshell -- -c 'REFRESH MATERIALIZED VIEW CONCURRENTLY reports_monthly_revenue_mv;'"},
        {"id": "v6", "type": "verified_command", "required": False,
         "command": "DJANGO_SETTINGS_MODULE=config.settings.local python manage.py migrate reports"},
        {"id": "v5", "type": "verified_command", "required": False,
         "command": "bash -n deploy/release.sh && shellcheck deploy/release.sh"},
    ],
    "secrets": [],
    "forbidden": [["This session is being continued"], ["Primary Request and Intent"]],
}
