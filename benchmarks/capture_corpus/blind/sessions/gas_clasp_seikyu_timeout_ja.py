# ruff: noqa: E501  (verbatim command output and file contents)
"""Google Apps Script (clasp) monthly billing aggregation hits the 6-minute limit (cell-by-cell getValue/setValue); batch getValues/setValues; AskUserQuestion: no continuation triggers; `clasp push` to the prod scriptId rejected; "write ES5" withdrawn (already V8); amounts stored as "¥12,300" text concatenated (Japanese)."""

from make_sessions import Session

SHUKEI_JS = '''// 月次請求集計: 「明細」シートを取引先ごとに集計して「請求一覧」に書き出す
function 集計_月次() {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  var meisai = ss.getSheetByName('明細');
  var out = ss.getSheetByName('請求一覧');
  var last = meisai.getLastRow();
  var goukei = {};
  for (var i = 2; i <= last; i++) {
    var torihikisaki = meisai.getRange(i, 2).getValue();
    var kingaku = meisai.getRange(i, 5).getValue();
    var tsuki = meisai.getRange(i, 1).getDisplayValue().substring(0, 7);
    if (tsuki !== 対象月()) continue;
    if (!goukei[torihikisaki]) goukei[torihikisaki] = 0;
    goukei[torihikisaki] += kingaku;
  }
  out.getRange(2, 1, out.getMaxRows() - 1, 2).clearContent();
  var row = 2;
  for (var k in goukei) {
    out.getRange(row, 1).setValue(k);
    out.getRange(row, 2).setValue(goukei[k]);
    row++;
  }
}

function 対象月() {
  var d = new Date();
  d.setMonth(d.getMonth() - 1);
  return Utilities.formatDate(d, 'Asia/Tokyo', 'yyyy/MM');
}
'''


def build() -> Session:
    s = Session("gas-clasp-seikyu-timeout-ja", cwd="/Users/mika/work/keiri-gas", branch="main",
                start="2026-04-28T05:03:44.915Z", version="2.1.41", slug="gas-batch-getvalues")
    s.user(
        "月次の請求集計のGASが「起動時間の最大値を超えました」で止まるようになった。明細が3万行超えたあたりから。clasp で管理してます。"
        "あ、うちのGASまだ旧ランタイムだと思うのでES5で書いてください、const とかアロー関数はダメ",
        wait=9,
    )
    s.call(s.read_call("src/集計.js", SHUKEI_JS), s.read_call(".clasp.json", '''{"scriptId":"1Xq9pR2vB7nL0cT4kW8mZ3yH6fJ5dS1aE9uG2oI4rK7tQ","rootDir":"src"}'''))
    s.bash("ls -a && cat .clasp.dev.json", '''.
..
.clasp.dev.json
.clasp.json
.git
.gitignore
README.md
src
{"scriptId":"1Dv3kM8nQ2wE5rT7yU9iO0pA4sD6fG1hJ3kL5zX7cV9bN","rootDir":"src"}''', desc="プロジェクト構成")
    s.say(
        "原因ははっきりしています。ループの中で 1 行ごとに `getRange(i, n).getValue()` を 3 回呼んでいて、3 万行なら約 9 万回の"
        "スプレッドシート呼び出しになります。1 回数ミリ秒〜数十ミリ秒かかるので 6 分の上限を超えます。書き出しも `setValue` を 1 セルずつです。\n\n"
        "`getValues()` で明細を一度に配列で読み、集計して `setValues()` で一度に書けば、呼び出しは数回で済みます。ES5 で書き直します。"
    )
    s.write("src/集計.js", '''// 月次請求集計: 「明細」シートを取引先ごとに集計して「請求一覧」に書き出す
// 3万行で6分制限を超えたため、getValues/setValues で一括読み書き（セル単位の呼び出しをしない）
function 集計_月次() {
  var ss = SpreadsheetApp.getActiveSpreadsheet();
  var meisai = ss.getSheetByName('明細');
  var out = ss.getSheetByName('請求一覧');
  var last = meisai.getLastRow();
  if (last < 2) return;
  var values = meisai.getRange(2, 1, last - 1, 5).getValues();
  var display = meisai.getRange(2, 1, last - 1, 1).getDisplayValues();
  var target = 対象月();
  var goukei = {};
  for (var i = 0; i < values.length; i++) {
    if (display[i][0].substring(0, 7) !== target) continue;
    var torihikisaki = values[i][1];
    if (!goukei[torihikisaki]) goukei[torihikisaki] = 0;
    goukei[torihikisaki] += values[i][4];
  }
  var rows = [];
  for (var k in goukei) rows.push([k, goukei[k]]);
  out.getRange(2, 1, out.getMaxRows() - 1, 2).clearContent();
  if (rows.length) out.getRange(2, 1, rows.length, 2).setValues(rows);
}

function 対象月() {
  var d = new Date();
  d.setMonth(d.getMonth() - 1);
  return Utilities.formatDate(d, 'Asia/Tokyo', 'yyyy/MM');
}
''')
    q = "明細がさらに増えた場合に備えて、時間ベースのトリガーで分割実行（続きから再開）も入れますか？"
    s.ask(
        [{"question": q, "header": "分割実行",
          "options": [("一括読み書きのみ", "今回は getValues/setValues だけ。数万行なら数十秒で終わる見込み"),
                      ("分割実行も入れる", "5分ごとに処理位置を PropertiesService に保存し、トリガーで続きから再開")]}],
        {q: "一括読み書きだけで。トリガーは前任者が作りまくって誰も把握できなくなったので、これ以上増やしたくない"},
    )
    s.say("了解です、トリガーは増やしません。まず反映します。")
    s.bash_rejected("clasp push", desc="GAS に反映",
                    reason="待って、.clasp.json は本番の scriptId。push は .clasp.dev.json で dev のコピーにだけ。本番への push は月初の締めが終わってから私がやります")
    s.bash("clasp push -P .clasp.dev.json", '''└─ src/appsscript.json
└─ src/集計.js
└─ src/メニュー.js
└─ src/共通.js
Pushed 4 files.''', desc="dev のコピーに push", secs=6)
    s.bash("clasp run 集計_月次 -P .clasp.dev.json", '''Unable to run script function. Please make sure you have permission to run the script function.''', desc="dev で実行を試す", secs=5)
    s.say(
        "`clasp run` は API 実行可能としてデプロイされていないので動きません（GCP プロジェクトの紐付けが要ります）。"
        "dev のスプレッドシートのエディタから `集計_月次` を実行して、実行ログを貼ってもらえますか？"
    )
    s.turn_end()
    s.user(
        '''48秒で終わった！けど請求一覧の金額がおかしい。株式会社ミナト商事が「012300450000018700…」みたいな数字の羅列になってる。ほかはまとも

あと、ごめん、appsscript.json見たら先月V8に切り替えてたの忘れてた。ES5縛りはもういいです、普通に書いて''',
        wait=240,
    )
    s.read("src/appsscript.json", '''{
  "timeZone": "Asia/Tokyo",
  "dependencies": {},
  "exceptionLogging": "STACKDRIVER",
  "runtimeVersion": "V8"
}''')
    s.bash("clasp logs -P .clasp.dev.json --simplified | tail -3 ; echo; grep -n \"ミナト\" -m3 README.md", '''2026-04-28T05:41:17.204Z  INFO  集計_月次 完了
2026-04-28T05:41:17.201Z  INFO  集計_月次 開始

5:- 明細の一部（ミナト商事など）は販売管理からの CSV 取り込みで、金額が「¥12,300」の文字列のまま入っている''', desc="ログと README の注意書き", secs=4)
    s.say(
        "原因が分かりました。README にある通り、ミナト商事など CSV 取り込みの行は金額が `¥12,300` のような**文字列**で入っています。"
        "`getValues()` は文字列をそのまま返すので、`0 + \"¥12,300\"` が文字列連結になり、以降の足し算も全部連結になっていました。"
        "（元のコードも同じ計算でしたが、途中で止まっていたので表に出ていなかったようです。）\n\n"
        "V8 なので普通の書き方で、金額を数値に正規化する関数を足します。"
    )
    s.edit("src/集計.js", '''    var torihikisaki = values[i][1];
    if (!goukei[torihikisaki]) goukei[torihikisaki] = 0;
    goukei[torihikisaki] += values[i][4];''', '''    var torihikisaki = values[i][1];
    if (!goukei[torihikisaki]) goukei[torihikisaki] = 0;
    goukei[torihikisaki] += 金額(values[i][4]);''')
    s.edit("src/集計.js", '''function 対象月() {''', '''// CSV 取り込み分は「¥12,300」の文字列のまま入っている（足すと文字列連結になる）
const 金額 = (v) => (typeof v === 'number' ? v : Number(String(v).replace(/[¥￥,\\s]/g, '')) || 0);

function 対象月() {''')
    s.bash("clasp push -P .clasp.dev.json", '''└─ src/appsscript.json
└─ src/集計.js
└─ src/メニュー.js
└─ src/共通.js
Pushed 4 files.''', desc="dev に再 push", secs=6)
    s.say("dev に入れました。もう一度エディタから実行して、ミナト商事の金額を見てもらえますか？")
    s.turn_end()
    s.user("ミナト商事 ¥1,284,300 になった、販売管理の数字と一致。OK", wait=180)
    s.bash("git add -A && git commit -qm '請求集計: getValues/setValues で一括処理（6分制限）、文字列金額を数値化' && git log --oneline -1",
           "9d41e7a 請求集計: getValues/setValues で一括処理（6分制限）、文字列金額を数値化", desc="コミット")
    s.say(
        "まとめ:\n\n"
        "- **6 分制限**: セル単位の `getValue`/`setValue` を `getValues`/`setValues` の一括読み書きに変更（3 万行で 48 秒）。\n"
        "- **金額の文字列連結**: CSV 取り込みの `¥12,300` 形式を数値化する `金額()` を追加。ミナト商事が販売管理と一致。\n"
        "- トリガーによる分割実行は入れていません。\n"
        "- dev のコピーにだけ push 済み。本番（`.clasp.json`）は未反映です。"
    )
    s.turn_end()
    s.user(
        "ありがとう。本番は5/2の締めが終わったら私がpushします。あと取引先マスタに同じ会社が2行あるやつ（旧社名と新社名）、集計で分かれちゃうんだけど、"
        "まとめていいのか経理の佐藤さんに確認しないと",
        wait=70,
    )
    s.say("承知しました。まとめる場合は取引先コードで集計キーを揃えるのが確実なので、佐藤さんの回答が出たら対応できます。")
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "Google Apps Script managed with clasp, monthly billing aggregation on a spreadsheet, Japanese",
        "\"write ES5\" in the first prompt, withdrawn later (the project had moved to V8)",
        "6-minute limit from cell-by-cell getValue/setValue; batched getValues/setValues",
        "AskUserQuestion: no continuation triggers (the predecessor's unmanaged triggers)",
        "`clasp push` to the prod scriptId rejected with a rule; `clasp push -P .clasp.dev.json`; `clasp run` failing (not API-executable)",
        "amounts stored as \"¥12,300\" text concatenated instead of summed; normalised",
        "todo (prod push after the 5/2 close) and a question for Sato (duplicate company rows) in the last message",
    ],
    "language": "ja",
    "empty": False,
    "items": [
        {"id": "b1", "type": "bug_note",
         "match": [["getValues", "getValue"], ["6分", "起動時間", "セル"]],
         "note": "集計がセル単位の getValue/setValue で 6 分制限を超えていた。getValues/setValues の一括読み書きで 3 万行 48 秒。"},
        {"id": "d1", "type": "decision",
         "match": [["トリガー"], ["前任者", "増やしたくない", "把握"]],
         "note": "分割実行のトリガーは入れない：前任者が作りまくって誰も把握できなくなったので増やしたくない。"},
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["push"], [".clasp.dev.json", "dev"], ["本番", "scriptId"]],
         "note": "clasp push は .clasp.dev.json で dev のコピーにだけ。.clasp.json は本番の scriptId で、本番への push は月初の締め後に本人がやる。"},
        {"id": "b2", "type": "bug_note",
         "match": [["¥12,300", "文字列"], ["連結", "CSV"]],
         "note": "CSV 取り込みの明細は金額が「¥12,300」の文字列で、足すと文字列連結になっていた（ミナト商事）。金額() で数値化。"},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["V8"], ["runtime", "ランタイム", "ES5"]],
         "note": "GAS は先月 V8 ランタイムに切り替え済み（ES5 縛りは不要）。"},
        {"id": "b3", "type": "bug_note", "types": ["bug_note", "project_fact"], "required": False,
         "match": [["clasp run"], ["permission", "API"]],
         "note": "clasp run は API 実行可能としてデプロイしていないので動かない。dev はエディタから実行。"},
        {"id": "t1", "type": "todo",
         "match": [["5/2", "締め"], ["push", "本番"]],
         "note": "本番への push は 5/2 の締めが終わってから本人がやる。"},
        {"id": "q1", "type": "open_question",
         "match": [["佐藤"], ["取引先マスタ", "2行", "旧社名"]],
         "note": "取引先マスタで同じ会社が 2 行（旧社名と新社名）ある分をまとめていいか、経理の佐藤さんに確認。"},
        {"id": "v1", "type": "verified_command", "command": "clasp push -P .clasp.dev.json"},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"], ["User has answered your questions"]],
}
