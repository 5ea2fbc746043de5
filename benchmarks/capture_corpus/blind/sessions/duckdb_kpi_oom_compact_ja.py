# ruff: noqa: E501  (verbatim command output and file contents)
"""Nightly DuckDB + pandas KPI batch OOM-killed in a 4 GB container; threads=1 tried in a background run, aggregation moved into SQL, JST vs UTC day boundary; compaction; a prod rerun refused (Japanese)."""

from make_sessions import Session

JOB_V1 = '''"""日次 KPI: アクセスログ (Parquet) からページ別の PV / UU を日別に集計する。"""
import argparse
from pathlib import Path

import duckdb
import pandas as pd

LOG_GLOB = "/data/logs/access/{month}/*.parquet"


def run(month: str, out: Path) -> None:
    con = duckdb.connect()
    df = con.sql(
        f"SELECT ts, user_id, page FROM read_parquet('{LOG_GLOB.format(month=month)}')"
    ).df()
    df["day"] = df["ts"].dt.tz_convert("Asia/Tokyo").dt.date
    kpi = (
        df.groupby(["day", "page"])
        .agg(pv=("user_id", "size"), uu=("user_id", "nunique"))
        .reset_index()
    )
    kpi.to_parquet(out, index=False)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--month", required=True)
    p.add_argument("--out", type=Path, required=True)
    a = p.parse_args()
    run(a.month, a.out)
'''

TEST = '''from datetime import date, datetime, timezone

import pandas as pd

from jobs.daily_kpi import run


def test_day_boundary_is_jst(tmp_path, monkeypatch):
    # 2026-03-31 15:30 UTC = 2026-04-01 00:30 JST -> 4/1 に数える
    logs = pd.DataFrame({
        "ts": pd.to_datetime([
            datetime(2026, 3, 31, 14, 50, tzinfo=timezone.utc),
            datetime(2026, 3, 31, 15, 30, tzinfo=timezone.utc),
            datetime(2026, 4, 1, 2, 0, tzinfo=timezone.utc),
        ]),
        "user_id": ["u1", "u2", "u3"],
        "page": ["/top", "/top", "/top"],
    })
    d = tmp_path / "2026-04"
    d.mkdir()
    logs.to_parquet(d / "part-0.parquet")
    monkeypatch.setattr("jobs.daily_kpi.LOG_GLOB", str(tmp_path / "{month}" / "*.parquet"))

    run("2026-04", tmp_path / "out.parquet")
    kpi = pd.read_parquet(tmp_path / "out.parquet")
    assert kpi.set_index("day").loc[date(2026, 4, 1), "pv"] == 2
    assert kpi.set_index("day").loc[date(2026, 3, 31), "pv"] == 1
'''

SUMMARY = '''Summary:
1. Primary Request and Intent: 夜間バッチ jobs/daily_kpi.py (CronJob daily-kpi) が昨夜から OOMKilled (exit 137)。ユーザー（小林さん）の前提: コンテナのメモリは 4GB 固定（インフラ側の決まり、上げられない）。KPI の「日」は JST。
2. Key Technical Concepts: DuckDB read_parquet, `.df()` で全行を pandas に実体化, DuckDB の memory_limit / threads, docker run --memory=4g で再現。
3. Files and Code Sections:
   - jobs/daily_kpi.py: DuckDB で ts, user_id, page を全件 `.df()` してから pandas で tz_convert('Asia/Tokyo') → groupby(day, page) で pv / uu (nunique)。3 月分は約 8,100 万行。
   - tests/test_daily_kpi.py: 既存 3 件（tests/fixtures の小さい Parquet、2 月分）。
4. Errors and fixes:
   - docker run --memory=4g で 3 月分を再現: exit 137（OOM）。
   - `SET threads=1` と `SET memory_limit='2GB'` を試した（バックグラウンド実行）: それでも exit 137。メモリを食っているのは DuckDB ではなく `.df()` 後の pandas の DataFrame（8,100 万行）なので効かない。元に戻した。
5. Pending Tasks: 集計を SQL（DuckDB）側に移して、`.df()` するのは集計結果だけにする。Polars 案との比較はユーザーに確認中。
6. Current Work: 集計を SQL に移す方針をユーザーに確認するところ。'''


def build() -> Session:
    s = Session("duckdb-kpi-oom-compact-ja", cwd="/home/kobayashi/work/analytics-batch", branch="fix/daily-kpi-oom",
                start="2026-04-08T00:41:19.087Z", version="2.1.57", slug="kpi-duck-tsubame")
    s.user(
        "daily_kpi の夜間バッチが昨日から落ちてます。\n\n"
        "```\n$ kubectl -n batch describe pod daily-kpi-29071440-7xk2q | grep -A3 'Last State'\n"
        "    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n```\n\n"
        "コンテナのメモリは 4GB 固定です（インフラ側のルールで上げられない）。月初から 3 月分を読むようになってから落ち始めた気がする",
        wait=6,
    )
    s.call(s.read_call("jobs/daily_kpi.py", JOB_V1), s.read_call("tests/test_daily_kpi.py", '''from pathlib import Path

import pandas as pd

from jobs.daily_kpi import run

FIX = Path(__file__).parent / "fixtures"


def _run(tmp_path, monkeypatch):
    monkeypatch.setattr("jobs.daily_kpi.LOG_GLOB", str(FIX / "{month}" / "*.parquet"))
    run("2026-02", tmp_path / "out.parquet")
    return pd.read_parquet(tmp_path / "out.parquet")


def test_pv_per_page(tmp_path, monkeypatch):
    kpi = _run(tmp_path, monkeypatch)
    assert kpi.groupby("page")["pv"].sum().to_dict() == {"/cart": 4, "/top": 9}


def test_uu_counts_distinct_users(tmp_path, monkeypatch):
    kpi = _run(tmp_path, monkeypatch)
    assert kpi.loc[kpi.page == "/top", "uu"].sum() == 5


def test_columns(tmp_path, monkeypatch):
    assert list(_run(tmp_path, monkeypatch).columns) == ["day", "page", "pv", "uu"]
'''))
    s.bash("duckdb -c \"SELECT count(*) AS rows, round(sum(total_compressed_size)/1e9, 2) AS gb FROM parquet_metadata('/data/logs/access/2026-03/*.parquet')\"", '''┌──────────┬────────┐
│   rows   │   gb   │
│  int64   │ double │
├──────────┼────────┤
│ 81204377 │   1.87 │
└──────────┴────────┘''', desc="3 月分の行数とサイズ")
    s.say(
        "3 月分は 8,120 万行です。`daily_kpi.py` は DuckDB で **全行** を `.df()` して pandas に持ってきてから "
        "`groupby` しているので、8,000 万行 × 3 列（`user_id` と `page` は文字列）を丸ごとメモリに載せています。"
        "4GB では足りません。\n\nまず手元で同じ条件（`--memory=4g`）で再現させます。時間がかかるのでバックグラウンドで:"
    )
    b1 = s.bash_bg("docker run --rm --memory=4g -v /data/logs:/data/logs:ro -v $PWD:/app -w /app kpi-batch:dev python -m jobs.daily_kpi --month 2026-03 --out /tmp/kpi.parquet",
                   "3 月分を 4GB 制限で実行（再現）")
    s.say("待っている間に、DuckDB 側のメモリ設定を見ておきます。`memory_limit` も `threads` もデフォルトのままで、DuckDB はデフォルトで物理メモリの 80% まで使おうとします。")
    s.task_notification(b1, "3 月分を 4GB 制限で実行（再現）", status="failed", exit_code=137, wait=260)
    s.say(
        "再現しました（exit 137）。まず一番安い手として、DuckDB のスレッドを 1 にしてメモリ上限を 2GB にしてみます。"
        "並列スキャンのバッファが減るはずです。"
    )
    s.edit("jobs/daily_kpi.py", '''    con = duckdb.connect()
''', '''    con = duckdb.connect()
    con.sql("SET threads = 1")
    con.sql("SET memory_limit = '2GB'")
''')
    b2 = s.bash_bg("docker run --rm --memory=4g -v /data/logs:/data/logs:ro -v $PWD:/app -w /app kpi-batch:dev python -m jobs.daily_kpi --month 2026-03 --out /tmp/kpi.parquet",
                   "threads=1 / memory_limit=2GB で再実行")
    s.task_notification(b2, "threads=1 / memory_limit=2GB で再実行", status="failed", exit_code=137, wait=610)
    s.say(
        "だめでした、同じく exit 137。考えてみれば当然で、`memory_limit` は DuckDB 自身のバッファにしか効きません。"
        "メモリを食っているのは `.df()` で作られる pandas の DataFrame（8,100 万行）で、それは DuckDB の外です。"
        "スレッド数も関係ありません。この変更は戻します。"
    )
    s.edit("jobs/daily_kpi.py", '''    con = duckdb.connect()
    con.sql("SET threads = 1")
    con.sql("SET memory_limit = '2GB'")
''', '''    con = duckdb.connect()
''')
    s.turn_end()
    s.compact(SUMMARY, pre_tokens=156880)
    s.say(
        "続きです。直し方は二つ考えられます:\n\n"
        "- **A. 集計を DuckDB の SQL に移す**: `GROUP BY day, page` と `count(DISTINCT user_id)` を SQL でやり、"
        "`.df()` するのは集計結果（数千行）だけ。DuckDB はメモリが足りなければディスクに逃がせます。\n"
        "- **B. Polars の lazy API に書き換える**: ストリーミングで集計できますが、依存が増えてコードは全面書き換えです。\n\n"
        "A を考えていますが、どうしますか？"
    )
    s.turn_end()
    s.user("A で。Polars に乗り換える話も前にあったけど、SQL なら分析チームの山田さんたちがレビューできる。Polars だと誰も読めない", wait=50)
    s.edit("jobs/daily_kpi.py", '''def run(month: str, out: Path) -> None:
    con = duckdb.connect()
    df = con.sql(
        f"SELECT ts, user_id, page FROM read_parquet('{LOG_GLOB.format(month=month)}')"
    ).df()
    df["day"] = df["ts"].dt.tz_convert("Asia/Tokyo").dt.date
    kpi = (
        df.groupby(["day", "page"])
        .agg(pv=("user_id", "size"), uu=("user_id", "nunique"))
        .reset_index()
    )
    kpi.to_parquet(out, index=False)''', '''def run(month: str, out: Path) -> None:
    # 集計は DuckDB 側で行い、pandas に持ってくるのは集計結果だけ。
    # 以前は全行を .df() してから pandas で groupby しており、3 月分（8,100 万行）で 4GB を超えて OOM。
    con = duckdb.connect()
    con.sql("SET temp_directory = '/tmp/duckdb'")
    con.sql("SET preserve_insertion_order = false")
    kpi = con.sql(f"""
        SELECT CAST(ts AS DATE) AS day, page,
               count(*) AS pv, count(DISTINCT user_id) AS uu
        FROM read_parquet('{LOG_GLOB.format(month=month)}')
        GROUP BY ALL
        ORDER BY day, page
    """).df()
    kpi.to_parquet(out, index=False)''')
    s.edit("jobs/daily_kpi.py", '''import duckdb
import pandas as pd
''', '''import duckdb
''')
    s.say("日付の境界がずれていないか確認するテストを足します（UTC 15:30 は JST では翌日 0:30）。")
    s.write("tests/test_day_boundary.py", TEST)
    s.bash("pytest -q tests/test_day_boundary.py", '''F                                                                        [100%]
=================================== FAILURES ===================================
__________________________ test_day_boundary_is_jst ___________________________

    def test_day_boundary_is_jst(tmp_path, monkeypatch):
    ...
        run("2026-04", tmp_path / "out.parquet")
        kpi = pd.read_parquet(tmp_path / "out.parquet")
>       assert kpi.set_index("day").loc[date(2026, 4, 1), "pv"] == 2
E       assert 1 == 2

tests/test_day_boundary.py:26: AssertionError
=========================== short test summary info ============================
FAILED tests/test_day_boundary.py::test_day_boundary_is_jst - assert 1 == 2
1 failed in 0.94s''', code=1, desc="KPI テスト", secs=5)
    s.say(
        "やはりずれていました。`CAST(ts AS DATE)` は DuckDB のセッションのタイムゾーンで日付にします。手元も本番のコンテナも "
        "`TZ` は UTC なので、UTC の日付で切られて JST 0:30 のアクセスが前日に入っていました。元の pandas 版は "
        "`tz_convert(\"Asia/Tokyo\")` していたので、このままだと KPI の日付が 9 時間ずれるところでした。"
        "環境に依存しないよう、SQL の中で明示的に JST に変換します。"
    )
    s.edit("jobs/daily_kpi.py", '''        SELECT CAST(ts AS DATE) AS day, page,''', '''        -- KPI の「日」は JST。CAST(ts AS DATE) はセッションの TimeZone（コンテナでは UTC）に依存するので明示する
        SELECT CAST(timezone('Asia/Tokyo', ts) AS DATE) AS day, page,''')
    s.bash("pytest -q", '''....                                                                     [100%]
4 passed in 1.32s''', desc="全テスト", secs=5)
    b3 = s.bash_bg("docker run --rm --memory=4g -v /data/logs:/data/logs:ro -v $PWD:/app -w /app kpi-batch:dev /usr/bin/time -v python -m jobs.daily_kpi --month 2026-03 --out /tmp/kpi.parquet",
                   "SQL 集計版を 3 月分・4GB 制限で実行")
    s.task_notification(b3, "SQL 集計版を 3 月分・4GB 制限で実行", wait=420)
    s.read(f"/tmp/claude-1000/{s.cwd.replace('/', '-')}/tasks/{b3}.output", '''	Command being timed: "python -m jobs.daily_kpi --month 2026-03 --out /tmp/kpi.parquet"
	User time (seconds): 1412.08
	System time (seconds): 38.77
	Elapsed (wall clock) time (h:mm:ss or m:ss): 6:51.22
	Maximum resident set size (kbytes): 1702344
	Exit status: 0''')
    s.say("3 月分が 4GB 制限の中で 6 分 51 秒、最大 RSS 1.7GB で通りました。今夜の分を待たずに本番でも流しておきます:")
    s.bash_rejected("kubectl -n batch create job daily-kpi-manual-0408 --from=cronjob/daily-kpi", desc="本番で手動実行",
                    reason="本番で手で流さないでください。6時のダッシュボード更新が出力を拾うので、手動分と夜間分で二重に集計されたことがある。今夜の定時実行で確認します")
    s.say("了解です、本番では実行しません。")
    s.say(
        "まとめ:\n\n"
        "- **原因**: 全行（3 月分 8,120 万行）を `.df()` で pandas に載せてから `groupby` していたため、4GB を超えて OOM。\n"
        "- **試してやめたこと**: `SET threads = 1` + `memory_limit = '2GB'` → 効かず（メモリを使っていたのは DuckDB の外の pandas）。戻しました。\n"
        "- **修正**: 集計を DuckDB の SQL に移し、`.df()` は集計結果だけ（方針 A。SQL なら分析チームがレビューできるため Polars にはしない）。\n"
        "- **途中で見つけたバグ**: `CAST(ts AS DATE)` はセッションのタイムゾーン（コンテナは UTC）で切るので、JST の日付が 9 時間ずれる。`timezone('Asia/Tokyo', ts)` で明示。\n"
        "- `pytest -q` 4 件パス、3 月分を `--memory=4g` で 6:51、最大 RSS 1.7GB。\n\n"
        "未確認: `temp_directory` を `/tmp/duckdb` にしましたが、本番 Pod の `/tmp`（emptyDir）にどれだけ書けるかは見ていません。"
    )
    s.turn_end()
    s.user(
        "ありがとう。emptyDir のサイズはインフラの木村さんに聞いておきます。monthly_kpi.py も同じ書き方なので、そっちは来週自分で直します",
        wait=70,
    )
    s.say("承知しました。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Python nightly batch on DuckDB + pandas (pytest, docker, a Kubernetes CronJob), Japanese; a pasted OOMKilled",
        "a limit in the request (container memory fixed at 4 GB by the infra rules)",
        "three background runs with --memory=4g and <task-notification>s (two failing with exit 137, one passing with its output read)",
        "SET threads=1 + memory_limit tried in the background, still OOM, reverted with its why (the memory is pandas, outside DuckDB)",
        "compaction after the failed attempt; the user's decision with its reason (SQL in DuckDB, not Polars: the analysts can review SQL)",
        "a new test failing with the real error in the middle: CAST(ts AS DATE) uses the session time zone (UTC), JST days shifted; timezone('Asia/Tokyo', ts)",
        "a manual prod job rejected with a story (double counting by the 6:00 dashboard refresh)",
        "an unchecked item in the wrap-up; a question for a colleague (Kimura, emptyDir) and a todo the user takes (monthly_kpi.py next week)",
    ],
    "language": "ja",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["4GB"], ["固定", "上げられない"]],
         "note": "バッチのコンテナのメモリは 4GB 固定（インフラ側のルールで上げられない）。"},
        {"id": "b1", "type": "bug_note",
         "match": [[".df()", "pandas"], ["OOM", "137"], ["8,1", "全行"]],
         "note": "daily_kpi は全行（3 月分 8,120 万行）を .df() で pandas に載せてから groupby しており、4GB を超えて OOMKilled。"},
        {"id": "f1", "type": "failed_attempt",
         "match": [["threads"], ["memory_limit"], ["pandas", "効かな", "137"]],
         "note": "SET threads = 1 と memory_limit = '2GB' は効かなかった: メモリを使っているのは DuckDB の外の pandas の DataFrame。戻した。"},
        {"id": "d1", "type": "decision",
         "match": [["SQL"], ["Polars"], ["レビュー", "山田"]],
         "note": "集計は DuckDB の SQL 側に移し、.df() は集計結果だけ。Polars にしないのは、SQL なら分析チーム（山田さんたち）がレビューできるから。"},
        {"id": "b2", "type": "bug_note",
         "match": [["CAST(ts AS DATE)", "タイムゾーン", "TimeZone"], ["JST", "Asia/Tokyo"], ["UTC"]],
         "note": "DuckDB の CAST(ts AS DATE) はセッションの TimeZone（コンテナは UTC）で日付を切るので JST の日付がずれる。timezone('Asia/Tokyo', ts) で明示する。"},
        {"id": "c2", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["本番", "手で流さない", "手動"], ["二重"]],
         "note": "本番で daily-kpi を手で流さない: 6 時のダッシュボード更新が出力を拾い、手動分と夜間分で二重に集計されたことがある。"},
        {"id": "q1", "type": "open_question",
         "match": [["emptyDir", "temp_directory"], ["木村"]],
         "note": "temp_directory（/tmp/duckdb）に本番 Pod の emptyDir がどれだけ書けるか未確認。インフラの木村さんに聞く。"},
        {"id": "t1", "type": "todo",
         "match": [["monthly_kpi"], ["来週"]],
         "note": "monthly_kpi.py も同じ書き方なので、小林さんが来週自分で直す。"},
        {"id": "v1", "type": "verified_command", "command": "pytest -q"},
        {"id": "v2", "type": "verified_command",
         "command": "docker run --rm --memory=4g -v /data/logs:/data/logs:ro -v $PWD:/app -w /app kpi-batch:dev /usr/bin/time -v python -m jobs.daily_kpi --month 2026-03 --out /tmp/kpi.parquet"},
    ],
    "secrets": [],
    "forbidden": [["task-notification"], ["This session is being continued"], ["doesn't want to proceed"]],
}
