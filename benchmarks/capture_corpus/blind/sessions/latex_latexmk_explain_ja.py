# ruff: noqa: E501  (verbatim command output and file contents)
"""Empty: a student asks why latexmk runs LuaLaTeX four times on the thesis; read-only digging and an explanation, nothing changed (Japanese)."""

from make_sessions import Session

LATEXMKRC = '''$pdf_mode = 4;            # lualatex
$lualatex = 'lualatex -synctex=1 -interaction=nonstopmode -file-line-error %O %S';
$bibtex_use = 2;
$biber = 'biber --bblencoding=utf8 -u -U --output_safechars %O %S';
$max_repeat = 6;
$out_dir = 'build';
'''

LOG_EXCERPT = '''build/thesis.log:1893:Package rerunfilecheck Warning: File `thesis.out' has changed.
build/thesis.log:1894:(rerunfilecheck)                Rerun to get outlines right
build/thesis.log:1902:LaTeX Warning: Label(s) may have changed. Rerun to get cross-references right.
build/thesis.log:1907:Package biblatex Warning: Please (re)run Biber on the file:
build/thesis.log:1911:Package biblatex Warning: Please rerun LaTeX.'''

FDB = '''["lualatex"] 1774569122.41 "thesis.tex" "build/thesis.pdf" "thesis" 1774569301.88 0
  "build/thesis.aux" 1774569298.7 41822 7d1c0a5e2b9f11c8a4e3b77f0d12c6aa "lualatex"
  "build/thesis.bcf" 1774569298.7 118204 03ab8e14d6c72f95e1a0b4c3d8f7e6a1 "lualatex"
  "build/thesis.out" 1774569298.7 9917 5e8c2f1a7b3d4e6f9a0b1c2d3e4f5a6b "lualatex"
  "build/thesis.toc" 1774569298.7 12480 a9f8e7d6c5b4a3928170f6e5d4c3b2a1 "lualatex"
  "chapters/03-method.tex" 1774568801.2 38815 c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9 ""
  "figures/pipeline.pdf" 1774212844.1 1830221 8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b ""'''


def build() -> Session:
    s = Session("latex-latexmk-explain-ja", cwd="/home/sato/thesis", branch="main",
                start="2026-03-29T12:18:40.905Z", version="2.1.60", slug="latexmk-rerun-tanuki")
    s.user(
        "ちょっと質問です。修論を latexmk でビルドすると毎回 lualatex が4回くらい走って3分かかります。なんで4回も走るのか知りたいだけなので、"
        "ファイルは何も変えないでください",
        wait=5,
    )
    s.read(".latexmkrc", LATEXMKRC)
    s.bash("grep -n 'Rerun\\|rerun\\|Biber' build/thesis.log", LOG_EXCERPT, desc="ログの再実行の理由")
    s.bash("head -8 build/thesis.fdb_latexmk", FDB, desc="latexmk の依存データベース")
    s.bash("grep -c 'Run number' build/thesis.blg build/thesis.log; grep -n '^Latexmk: applying rule' build/latexmk.out | tail -6", '''build/thesis.blg:0
build/thesis.log:0
12:Latexmk: applying rule 'lualatex'...
31:Latexmk: applying rule 'biber thesis'...
44:Latexmk: applying rule 'lualatex'...
58:Latexmk: applying rule 'lualatex'...
71:Latexmk: applying rule 'lualatex'...''', desc="前回のビルドで適用されたルール")
    s.bash("grep -n 'hyperref\\|biblatex\\|tableofcontents\\|cleveref' thesis.tex", '''7:\\usepackage[backend=biber,style=ieee]{biblatex}
15:\\usepackage{hyperref}
16:\\usepackage{cleveref}
42:\\tableofcontents''', desc="関係するパッケージ")
    s.say(
        "理由は「毎回すべてを変えているから」ではなく、LaTeX の仕組みそのものです。前回のビルドは `lualatex → biber → lualatex → lualatex → lualatex` でした。\n\n"
        "1. **1回目の lualatex**: 本文を組みながら、目次（`.toc`）、相互参照（`.aux`）、PDF のしおり（hyperref の `.out`）、"
        "biblatex が必要とする文献リスト（`.bcf`）を**書き出す**だけで、まだ使えません。\n"
        "2. **biber**: `.bcf` を読んで参考文献を整形し `.bbl` を作ります。\n"
        "3. **2回目**: `.bbl` と目次を読み込みます。ここで文献リストや目次が入るのでページ番号がずれ、`Label(s) may have changed` が出ます。\n"
        "4. **3回目**: ずれたページ番号で参照と目次を直します。しおり（`thesis.out`）もここで確定（`rerunfilecheck`）。\n"
        "5. **4回目**: 3回目で目次の行数が変わってまたページが動いた、というときに走ります。latexmk は `.aux`/`.toc`/`.out` の"
        "ハッシュ（`fdb_latexmk` に記録）が変わらなくなるまで繰り返し、`$max_repeat = 6` が上限です。\n\n"
        "3分のうち大半は lualatex 自体の速さです（LuaLaTeX は pdfLaTeX より遅く、日本語フォントの読み込みも重い）。"
        "一般論としては、執筆中は `\\includeonly` で章を絞る、画像を `draft` にする、といった方法で速くできますが、今回は変更しません。"
    )
    s.turn_end()
    s.user("なるほど、ハッシュが落ち着くまで回してるんですね。4回目はたまにしか走らないってことですか？", wait=80)
    s.bash("grep -n 'applying rule' build/latexmk.out | wc -l; ls -la --time-style=+%H:%M build/thesis.toc build/thesis.aux", '''5
-rw-r--r-- 1 sato sato 41822 21:54 build/thesis.aux
-rw-r--r-- 1 sato sato 12480 21:54 build/thesis.toc''', desc="前回の実行回数")
    s.say(
        "はい。本文を少し直しただけでページ割りが変わらなければ、2回目（biber が不要なら biber も飛ばします）で止まることもあります。"
        "参考文献を足したり、章の長さが変わって目次や参照のページが動いたときに3回、4回と増えます。前回は文献と目次の両方が動いたので4回でした。"
    )
    s.turn_end()
    s.user("よくわかりました。それだけ知りたかったので大丈夫です、ありがとうございます", wait=60)
    s.say("どういたしまして。何も変更していません。")
    s.turn_end()
    s.local_command("exit", "Goodbye!", wait=8)
    return s


GOLD = {
    "covers": [
        "empty: a read-only question about latexmk running LuaLaTeX four times on a thesis (biber, hyperref, rerunfilecheck, fdb_latexmk hashes)",
        "'ファイルは何も変えないでください' and 'それだけ知りたかった': nothing changed, nothing decided, nothing to do",
        "Read and greps of logs; speed-ups mentioned only as general information, not adopted",
        "/exit",
    ],
    "language": "ja",
    "empty": True,
    "items": [],
    "secrets": [],
    "forbidden": [],
}
