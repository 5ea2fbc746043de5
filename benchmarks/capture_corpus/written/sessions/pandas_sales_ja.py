# ruff: noqa: E501  (verbatim command output and file contents)
"""pandas weekly sales notebook broken by a renamed CSV column (Japanese)."""

from make_sessions import Session

LOAD = '''"""Raw order exports -> one clean DataFrame."""

from pathlib import Path

import pandas as pd

RAW = Path(__file__).resolve().parents[2] / "data" / "raw"
CLEAN = Path(__file__).resolve().parents[2] / "data" / "clean"


def load_orders(week: str) -> pd.DataFrame:
    files = sorted(RAW.glob(f"orders_{week}*.csv"))
    df = pd.concat([pd.read_csv(f, parse_dates=["order_date"]) for f in files], ignore_index=True)
    df["amount"] = df["amount"].astype(float)
    df["store_id"] = df["store_id"].astype("Int64")
    return df


def save_clean(df: pd.DataFrame, week: str) -> Path:
    CLEAN.mkdir(parents=True, exist_ok=True)
    out = CLEAN / f"orders_{week}.csv"
    df.to_csv(out, index=False)
    return out
'''

TEST = '''import pandas as pd

from sales.load import load_orders


def test_load_orders_parses_dates_and_amounts(raw_dir):
    (raw_dir / "orders_2026-W10_a.csv").write_text(
        "order_id,order_date,store_id,amount\\n1,2026-03-02,12,1280\\n2,2026-03-03,,540\\n"
    )
    df = load_orders("2026-W10")
    assert df["order_date"].dtype == "datetime64[ns]"
    assert df["amount"].sum() == 1820
    assert df["store_id"].isna().sum() == 1
'''

NEW_TESTS = '''

def test_load_orders_accepts_new_export_format(raw_dir):
    (raw_dir / "orders_2026-W11_a.csv").write_text(
        'order_id,ordered_at,store_id,amount\\n1,2026-03-09T10:15:00+09:00,12,"¥1,280"\\n2,2026-03-09T11:00:00+09:00,7,¥540\\n'
    )
    df = load_orders("2026-W11")
    assert "order_date" in df.columns
    assert df["amount"].sum() == 1820


def test_load_orders_rejects_unparseable_amounts(raw_dir):
    (raw_dir / "orders_2026-W11_b.csv").write_text(
        "order_id,ordered_at,store_id,amount\\n1,2026-03-10T09:00:00+09:00,12,要確認\\n"
    )
    with pytest.raises(ValueError, match="要確認"):
        load_orders("2026-W11")
'''


def build() -> Session:
    s = Session("pandas-sales-ja", cwd="/home/akira/work/sales-analytics", branch="fix/new-export-format",
                start="2026-03-10T00:52:31.736Z", version="2.1.47", slug="tidy-folding-crane")
    s.user(
        "週次売上のノートブック（notebooks/weekly_sales.ipynb）が先週から落ちます。"
        "`KeyError: 'order_date'` が出ています。データ基盤チームがエクスポートのカラム名を"
        "変えたみたいです。\n\n"
        "あと、このリポジトリでは pandas の apply は使わないでください。データが大きいので、"
        "必ずベクトル化して書く決まりです。",
        wait=5,
    )
    s.read("src/sales/load.py", LOAD)
    s.bash("ls data/raw | tail -4 && head -3 data/raw/orders_2026-W10_a.csv data/raw/orders_2026-W11_a.csv", """\
orders_2026-W10_a.csv
orders_2026-W10_b.csv
orders_2026-W11_a.csv
orders_2026-W11_b.csv
==> data/raw/orders_2026-W10_a.csv <==
order_id,order_date,store_id,amount
88120341,2026-03-02,12,1280
88120342,2026-03-02,,540

==> data/raw/orders_2026-W11_a.csv <==
order_id,ordered_at,store_id,amount
88391102,2026-03-09T10:15:00+09:00,12,"¥1,280"
88391103,2026-03-09T11:00:00+09:00,7,¥540""", desc="新旧のCSVを比較")
    s.say(
        "原因が見えました。新しいエクスポート（W11〜）は変更が2つあります:\n\n"
        "1. `order_date` → `ordered_at`（しかも日付だけでなくタイムゾーン付きの日時）\n"
        "2. `amount` が `\"¥1,280\"` のように円記号と桁区切りカンマ付きの文字列\n\n"
        "過去分のCSV（W10以前）は旧カラム名のままアーカイブに残っていて、再集計で読むこともあるので、"
        "読み込み時に新旧どちらのカラム名も受け付けるようにします。`COLUMN_ALIASES` で新しい名前を"
        "社内の正式名 `order_date` に寄せておけば、ノートブック側は何も変えずに済みます。"
    )
    s.read("tests/test_load.py", TEST)
    s.edit("tests/test_load.py", "import pandas as pd\n", "import pandas as pd\nimport pytest\n")
    s.edit("tests/test_load.py", "    assert df[\"store_id\"].isna().sum() == 1\n",
           "    assert df[\"store_id\"].isna().sum() == 1\n" + NEW_TESTS)
    s.edit("src/sales/load.py", '''def load_orders(week: str) -> pd.DataFrame:
    files = sorted(RAW.glob(f"orders_{week}*.csv"))
    df = pd.concat([pd.read_csv(f, parse_dates=["order_date"]) for f in files], ignore_index=True)
    df["amount"] = df["amount"].astype(float)''', '''# 2026-W11 からエクスポートのカラム名が変わった。過去分のCSVは旧名のままなので両方受け付ける。
COLUMN_ALIASES = {"ordered_at": "order_date"}


def _read_one(path: Path) -> pd.DataFrame:
    df = pd.read_csv(path, dtype={"amount": "string"}).rename(columns=COLUMN_ALIASES)
    # 新形式はタイムゾーン付き日時。週次集計は日本時間の日付で切る。
    ts = pd.to_datetime(df["order_date"], utc=True).dt.tz_convert("Asia/Tokyo")
    df["order_date"] = ts.dt.tz_localize(None).dt.normalize()
    return df


def load_orders(week: str) -> pd.DataFrame:
    files = sorted(RAW.glob(f"orders_{week}*.csv"))
    df = pd.concat([_read_one(f) for f in files], ignore_index=True)
    df["amount"] = pd.to_numeric(df["amount"].str.replace(r"[¥,]", "", regex=True), errors="coerce")''')
    s.bash("uv run pytest tests/test_load.py -q 2>&1 | tail -15", """\
..F                                                                      [100%]
=================================== FAILURES ===================================
__________________ test_load_orders_rejects_unparseable_amounts ________________

raw_dir = PosixPath('/tmp/pytest-of-akira/pytest-31/test_load_orders_rejects_unpar0/raw')

    def test_load_orders_rejects_unparseable_amounts(raw_dir):
        (raw_dir / "orders_2026-W11_b.csv").write_text(
            "order_id,ordered_at,store_id,amount\\n1,2026-03-10T09:00:00+09:00,12,要確認\\n"
        )
>       with pytest.raises(ValueError, match="要確認"):
E       Failed: DID NOT RAISE <class 'ValueError'>

tests/test_load.py:33: Failed
=========================== short test summary info ============================
FAILED tests/test_load.py::test_load_orders_rejects_unparseable_amounts - Failed: DID NOT RAISE <class 'ValueError'>
1 failed, 2 passed in 0.62s""", desc="読み込みのテスト", secs=4.0)
    s.say(
        "新形式の読み込みは通りましたが、`errors=\"coerce\"` はやめます。「要確認」のような"
        "数値にならない値が黙って NaN になり、`sum()` では NaN が無視されるので、売上が何も"
        "言わずに減ります。レポートの数字が静かに間違うより、読み込みで止まるほうがいい。"
        "変換できない値があれば、その値を含めて `ValueError` を出します（ベクトル演算のまま）。"
    )
    s.edit("src/sales/load.py", '''    df["amount"] = pd.to_numeric(df["amount"].str.replace(r"[¥,]", "", regex=True), errors="coerce")''',
           '''    cleaned = df["amount"].str.replace(r"[¥,]", "", regex=True)
    amount = pd.to_numeric(cleaned, errors="coerce")
    bad = df.loc[amount.isna() & cleaned.notna(), "amount"]
    if not bad.empty:
        raise ValueError(f"amount に数値でない値があります: {bad.unique()[:5].tolist()}")
    df["amount"] = amount''')
    s.bash("uv run pytest tests/test_load.py -q 2>&1 | tail -15", """\
...                                                                      [100%]
3 passed in 0.58s""", desc="読み込みのテスト", secs=4.0)
    s.say(
        "次に保存形式です。`save_clean` はCSVで書いていますが、CSVを経由すると `order_date` は"
        "文字列に、`store_id` の `Int64`（欠損あり整数）は float に戻ってしまい、ノートブック側で"
        "毎回型を直しています（セル3と5）。型がそのまま残る Parquet に変えます。pyarrow は"
        "すでに依存に入っています。"
    )
    s.edit("src/sales/load.py", '''    out = CLEAN / f"orders_{week}.csv"
    df.to_csv(out, index=False)''', '''    out = CLEAN / f"orders_{week}.parquet"
    df.to_parquet(out, index=False)''')
    s.bash("grep -n 'orders_.*\\.csv\\|astype' notebooks/weekly_sales.ipynb | head", """\
112:    "df = pd.read_csv(CLEAN / f\\"orders_{WEEK}.csv\\")\\n",
113:    "df[\\"order_date\\"] = pd.to_datetime(df[\\"order_date\\"])\\n",
114:    "df[\\"store_id\\"] = df[\\"store_id\\"].astype(\\"Int64\\")\\n",
188:    "weekly = df.groupby([\\"store_id\\", pd.Grouper(key=\\"order_date\\", freq=\\"W-MON\\")])[\\"amount\\"].sum()\\n",""",
           desc="ノートブックの読み込み部分")
    s.bash("""uv run python - <<'EOF'
import json, pathlib
p = pathlib.Path("notebooks/weekly_sales.ipynb")
nb = json.loads(p.read_text())
for cell in nb["cells"]:
    src = "".join(cell["source"])
    if 'orders_{WEEK}.csv' in src:
        src = src.replace('pd.read_csv(CLEAN / f"orders_{WEEK}.csv")', 'pd.read_parquet(CLEAN / f"orders_{WEEK}.parquet")')
        src = src.replace('df["order_date"] = pd.to_datetime(df["order_date"])\\n', "")
        src = src.replace('df["store_id"] = df["store_id"].astype("Int64")\\n', "")
        cell["source"] = src.splitlines(keepends=True)
p.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\\n")
print("updated")
EOF""", "updated", desc="ノートブックの読み込みセルをParquetに")
    s.bash("uv run pytest -q 2>&1 | tail -3", "14 passed in 2.91s", desc="全テスト", secs=6.0)
    s.bash("uv run jupyter nbconvert --to notebook --execute notebooks/weekly_sales.ipynb "
           "--output /tmp/weekly_sales.out.ipynb 2>&1 | tail -3",
           "[NbConvertApp] Converting notebook notebooks/weekly_sales.ipynb to notebook\n"
           "[NbConvertApp] Writing 412803 bytes to /tmp/weekly_sales.out.ipynb",
           desc="ノートブックを最後まで実行", secs=48.0)
    s.say(
        "ノートブックが最後まで通りました。\n\n"
        "- `src/sales/load.py`: `COLUMN_ALIASES` で `ordered_at` → `order_date`（旧CSVもそのまま"
        "読める）、タイムゾーン付き日時は日本時間の日付に変換、`¥` と `,` を除いて数値化。変換"
        "できない金額があれば `ValueError` で止まります。apply は使っていません。\n"
        "- 中間データは CSV ではなく Parquet（`data/clean/orders_<週>.parquet`）。ノートブックの"
        "型直しの2行は不要になったので削除しました。\n"
        "- テスト14件すべて通過、`nbconvert --execute` も成功。\n\n"
        "ひとつ確認したいことがあります。W11のデータには金額がマイナスの行が23件あり、返品の"
        "ようです（旧形式にはありませんでした）。今は週次売上にそのまま含まれて相殺されています"
        "が、レポートとして返品を売上から引くべきか、別に出すべきかは私には判断できません。"
        "データ基盤チームかレポートの利用者に確認が必要です。"
    )
    s.turn_end()
    s.user("ありがとう、返品の件はこっちで聞いておきます。", wait=60)
    s.say("了解です。回答が出たら、`load_orders` の後に返品だけ分ける処理を足せるようにしておきます。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Japanese user and replies",
        "rule (no pandas apply, vectorise)",
        "KeyError from a renamed CSV column",
        "errors='coerce' abandoned (silent NaN)",
        "decisions with their why (column aliases, Parquet)",
        "heredoc python edit of a notebook, nbconvert run",
        "open question (returns)",
    ],
    "language": "ja",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["apply"], ["ベクトル化"]],
         "note": "このリポジトリでは pandas の apply を使わず、ベクトル化して書く（データが大きいため）。"},
        {"id": "b1", "type": "bug_note",
         "match": [["order_date"], ["ordered_at"]],
         "note": "ノートブックの KeyError: 'order_date' は、W11 からエクスポートのカラム名が ordered_at "
                 "に変わったため。"},
        {"id": "d1", "type": "decision",
         "match": [["COLUMN_ALIASES", "新旧"], ["過去", "旧カラム名", "旧名"]],
         "note": "過去分のCSVは旧カラム名のままなので、COLUMN_ALIASES で新旧どちらも order_date に寄せて読む。"},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "decision"],
         "match": [["¥"], ["amount", "金額"]],
         "note": "新形式の amount は \"¥1,280\" のような文字列。¥ とカンマを除いて数値化する。"},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "decision"],
         "match": [["NaN"], ["coerce", "ValueError"]],
         "note": "to_numeric(errors=\"coerce\") は数値でない金額を黙って NaN にして売上が減るのでやめ、"
                 "ValueError で止める。"},
        {"id": "d2", "type": "decision",
         "match": [["Parquet"], ["型", "Int64"]],
         "note": "中間データは CSV ではなく Parquet で保存する。CSV だと order_date や Int64 の型が失われるため。"},
        {"id": "q1", "type": "open_question", "types": ["open_question", "todo"],
         "match": [["返品"]],
         "note": "W11 から金額マイナスの行（返品）が入る。週次売上から引くか別に出すか未定（ユーザーが確認中）。"},
        {"id": "v1", "type": "verified_command", "command": "uv run pytest tests/test_load.py -q"},
        {"id": "v2", "type": "verified_command", "command": "uv run pytest -q"},
        {"id": "v3", "type": "verified_command",
         "command": "uv run jupyter nbconvert --to notebook --execute notebooks/weekly_sales.ipynb "
                    "--output /tmp/weekly_sales.out.ipynb"},
    ],
    "secrets": [],
    "forbidden": [],
}
