# ruff: noqa: E501  (verbatim command output and file contents)
"""OCaml + Menhir: arithmetic in a config language; conflicts, .messages, a negative-literal lexer bug (Japanese)."""

from make_sessions import Session

PARSER = '''%{
open Ast
%}

%token <int> INT
%token <string> STRING IDENT
%token TRUE FALSE
%token LBRACE RBRACE LBRACKET RBRACKET COMMA EQUALS
%token EOF

%start <Ast.document> document

%%

document:
  | bs = list(binding) EOF { bs }

binding:
  | k = IDENT EQUALS v = value { { key = k; value = v; loc = $loc } }

value:
  | i = INT { Int i }
  | s = STRING { String s }
  | TRUE { Bool true }
  | FALSE { Bool false }
  | r = IDENT { Ref r }
  | LBRACKET vs = separated_list(COMMA, value) RBRACKET { List vs }
  | LBRACE bs = list(binding) RBRACE { Table bs }
'''

LEXER = '''{
open Parser
exception Error of string * Lexing.position
}

let digit = ['0'-'9']
let ident = ['a'-'z' '_'] ['a'-'z' 'A'-'Z' '0'-'9' '_' '-']*

rule token = parse
  | [' ' '\\t'] { token lexbuf }
  | '\\n' { Lexing.new_line lexbuf; token lexbuf }
  | '#' [^ '\\n']* { token lexbuf }
  | '-'? digit+ as n { INT (int_of_string n) }
  | "true" { TRUE }
  | "false" { FALSE }
  | ident as s { IDENT s }
  | '"' ([^ '"']* as s) '"' { STRING s }
  | '{' { LBRACE } | '}' { RBRACE }
  | '[' { LBRACKET } | ']' { RBRACKET }
  | ',' { COMMA } | '=' { EQUALS }
  | eof { EOF }
  | _ as c { raise (Error (Printf.sprintf "unexpected character %C" c, lexbuf.lex_curr_p)) }
'''

DUNE = '''(menhir
 (modules parser)
 (flags --strict --explain --table))

(ocamllex lexer)

(library
 (name confl)
 (libraries menhirLib)
 (preprocess (pps ppx_deriving.show)))

; Hand-written syntax error messages: parser.messages must cover every error state.
(rule
 (targets parser_messages.ml)
 (deps parser.messages parser.mly)
 (action (with-stdout-to %{targets} (run menhir --compile-errors %{deps}))))

(rule
 (alias check-messages)
 (deps parser.messages parser.mly)
 (action
  (progn
   (with-stdout-to parser_new.messages (run menhir --list-errors parser.mly))
   (run menhir --compare-errors parser_new.messages --compare-errors parser.messages parser.mly))))

(rule (alias runtest) (action (progn)) (deps (alias check-messages)))
'''

TEST = '''open Confl

let show src =
  match Confl.parse_string src with
  | Ok doc -> print_endline (Ast.show_document doc)
  | Error e -> print_endline (Confl.string_of_error e)

let%expect_test "negative literal" =
  show "retries = -1";
  [%expect {| [{ key = "retries"; value = (Int -1) }] |}]
'''


def build() -> Session:
    s = Session("ocaml-menhir-ja", cwd="/home/sato/src/confl", branch="feature/arith",
                start="2026-02-24T05:33:12.840Z", version="2.1.43", slug="tidy-folding-tanuki")
    s.user(
        "confl の値に算術式を書けるようにしたいです。+ - * / と単項マイナス、括弧。例えば "
        "`timeout = base_timeout * 2 + 5` みたいな感じ。\n\n"
        "パーサは今の Menhir のままで。CI のイメージが OCaml 4.14 なので、5.x の機能（エフェクト"
        "とか Domain とか）は使わないでください。テストは既存のと同じく ppx_expect で書いてほしい"
        "です。",
        wait=4,
    )
    s.call(s.read_call("src/parser.mly", PARSER), s.read_call("src/lexer.mll", LEXER),
           s.read_call("src/dune", DUNE))
    s.read("test/test_parser.ml", TEST)
    s.say(
        "`src/dune` を見ると、Menhir は `--strict` 付きなので衝突は警告ではなくビルドエラーに"
        "なります。あと `parser.messages` に手書きの構文エラーメッセージがあって、"
        "`@check-messages` が `@runtest` にぶら下がっている——つまり文法を変えて新しいエラー状態"
        "ができたら、そのメッセージも書かないとテストが通りません。\n\n"
        "まずは素直に二項演算を `value` に足してみます。"
    )
    s.edit("src/parser.mly", '''%token LBRACE RBRACE LBRACKET RBRACKET COMMA EQUALS''', '''%token LBRACE RBRACE LBRACKET RBRACKET COMMA EQUALS
%token PLUS MINUS STAR SLASH LPAREN RPAREN''')
    s.edit("src/parser.mly", '''  | LBRACE bs = list(binding) RBRACE { Table bs }''', '''  | LBRACE bs = list(binding) RBRACE { Table bs }
  | a = value PLUS b = value { Binop (Add, a, b) }
  | a = value MINUS b = value { Binop (Sub, a, b) }
  | a = value STAR b = value { Binop (Mul, a, b) }
  | a = value SLASH b = value { Binop (Div, a, b) }
  | MINUS v = value { Neg v }
  | LPAREN v = value RPAREN { v }''')
    s.edit("src/lexer.mll", '''  | ',' { COMMA } | '=' { EQUALS }''', '''  | ',' { COMMA } | '=' { EQUALS }
  | '+' { PLUS } | '-' { MINUS } | '*' { STAR } | '/' { SLASH }
  | '(' { LPAREN } | ')' { RPAREN }''')
    s.read("src/ast.ml", '''type value =
  | Int of int
  | String of string
  | Bool of bool
  | Ref of string
  | List of value list
  | Table of binding list
[@@deriving show]

and binding = { key : string; value : value; loc : Lexing.position * Lexing.position [@opaque] }
[@@deriving show]

type document = binding list [@@deriving show]
''')
    s.edit("src/ast.ml", '''type value =
  | Int of int''', '''type binop = Add | Sub | Mul | Div [@@deriving show]

type value =
  | Int of int
  | Binop of binop * value * value
  | Neg of value''')
    s.bash("dune build", """\
File "src/parser.mly", line 36, characters 4-9:
Warning: production value -> value PLUS value is never reduced.
Warning: in total, 1 production is never reduced.
Warning: 5 states have shift/reduce conflicts.
Warning: 25 shift/reduce conflicts were arbitrarily resolved.
Error: the grammar is ambiguous and --strict was given.
File "src/parser.conflicts" has been written.""", code=1, desc="ビルド", secs=6.0)
    s.say(
        "予想通り 25 個の shift/reduce 衝突です（`1 - 2 - 3` をどちら結合にするか、`*` と `+` の"
        "どちらが強いか、が文法に書かれていない）。\n\n"
        "直し方は二通り。教科書的な expr / term / factor の三段に分けるか、`%left` などの優先順位"
        "宣言を使うか。三段の方が曖昧さが文法そのものに現れないので、まずそちらで書いてみます。"
    )
    s.edit("src/parser.mly", '''  | a = value PLUS b = value { Binop (Add, a, b) }
  | a = value MINUS b = value { Binop (Sub, a, b) }
  | a = value STAR b = value { Binop (Mul, a, b) }
  | a = value SLASH b = value { Binop (Div, a, b) }
  | MINUS v = value { Neg v }
  | LPAREN v = value RPAREN { v }''', '''  | e = expr { e }

expr:
  | a = expr PLUS b = term { Binop (Add, a, b) }
  | a = expr MINUS b = term { Binop (Sub, a, b) }
  | t = term { t }

term:
  | a = term STAR b = factor { Binop (Mul, a, b) }
  | a = term SLASH b = factor { Binop (Div, a, b) }
  | f = factor { f }

factor:
  | MINUS f = factor { Neg f }
  | LPAREN e = expr RPAREN { e }
  | i = INT { Int i }
  | r = IDENT { Ref r }''')
    s.edit("src/parser.mly", '''  | i = INT { Int i }
  | s = STRING { String s }''', '''  | s = STRING { String s }''')
    s.edit("src/parser.mly", '''  | r = IDENT { Ref r }
  | LBRACKET''', '''  | LBRACKET''')
    s.bash("dune build @runtest 2>&1 | head -30", """\
File "src/parser.messages", line 14, characters 0-27:
Error: this sentence does not end with a syntax error, as it should.
document: IDENT EQUALS INT IDENT
File "src/parser.messages", line 22, characters 0-30:
Error: this sentence does not end with a syntax error, as it should.
document: IDENT EQUALS IDENT IDENT
File "src/parser.messages", line 31, characters 0-33:
Error: this sentence leads to an error in state 19, but also in state 23.
File "src/parser.messages", line 58, characters 0-41:
Error: this sentence does not end with a syntax error, as it should.
document: IDENT EQUALS LBRACKET INT RBRACKET EQUALS
[... 19 more errors in src/parser.messages ...]""", desc="ビルドとテスト", secs=7.0)
    s.bash("grep -c '^document:' src/parser.messages && git log --oneline -3 -- src/parser.messages", """\
41
e21b0c4 messages: explain missing '=' and unclosed tables (#88)
7f3a9d2 messages: friendlier errors for lists (#71)
19c44aa messages: initial hand-written syntax errors""", desc="parser.messages の規模と履歴")
    s.say(
        "衝突は消えましたが、今度は `parser.messages` の 41 エントリのうち 23 個が無効になりました"
        "（`head` で終了コードは隠れていますが中身はエラーです）。三段構成にすると `INT` と "
        "`IDENT` が `factor` に移るので、既存の文（`document: IDENT EQUALS INT IDENT` など）が"
        "通る状態がほぼ全部変わってしまう。メッセージはユーザー向けに何度も手で直されてきたもの"
        "（#71、#88）なので、全部書き直すのは割に合いません。\n\n"
        "三段構成はやめて元に戻し、`value` はそのままに優先順位宣言で解決します。こちらなら既存の"
        "状態はほとんど変わらず、増えるのは演算子まわりの新しいエラー状態だけのはずです。"
    )
    s.bash("git checkout src/parser.mly", "Updated 1 path from the index", desc="三段構成を取り消す")
    s.read("src/parser.mly", PARSER)
    s.edit("src/parser.mly", '''%token LBRACE RBRACE LBRACKET RBRACKET COMMA EQUALS
%token EOF''', '''%token LBRACE RBRACE LBRACKET RBRACKET COMMA EQUALS
%token PLUS MINUS STAR SLASH LPAREN RPAREN
%token EOF

%left PLUS MINUS
%left STAR SLASH
%nonassoc UMINUS''')
    s.edit("src/parser.mly", '''  | LBRACE bs = list(binding) RBRACE { Table bs }''', '''  | LBRACE bs = list(binding) RBRACE { Table bs }
  | a = value PLUS b = value { Binop (Add, a, b) }
  | a = value MINUS b = value { Binop (Sub, a, b) }
  | a = value STAR b = value { Binop (Mul, a, b) }
  | a = value SLASH b = value { Binop (Div, a, b) }
  | MINUS v = value %prec UMINUS { Neg v }
  | LPAREN v = value RPAREN { v }''')
    s.bash("dune build @runtest 2>&1 | head -30", """\
File "src/parser_new.messages", line 212, characters 0-25:
Error: this sentence leads to an error in state 31.
No sentence that leads to this state exists in "src/parser.messages".
document: IDENT EQUALS MINUS
File "src/parser_new.messages", line 230, characters 0-31:
Error: this sentence leads to an error in state 33.
No sentence that leads to this state exists in "src/parser.messages".
document: IDENT EQUALS LPAREN INT
File "src/parser_new.messages", line 247, characters 0-29:
Error: this sentence leads to an error in state 36.
No sentence that leads to this state exists in "src/parser.messages".
document: IDENT EQUALS INT PLUS""", desc="ビルドとテスト", secs=7.0)
    s.say("既存の 41 エントリは全部有効のまま、足りないのは新しい 3 状態だけです。メッセージを書き"
          "ます。")
    s.read("src/parser.messages", '''document: IDENT EQUALS INT IDENT
##
## Ends in an error in state: 12.
##
Expected a new line or '}' after this value. Did you forget a '=' before the next key?

''')
    s.bash("cat >> src/parser.messages <<'EOF'\n\ndocument: IDENT EQUALS MINUS\n\nExpected a number, a name or '(' after '-'.\n\ndocument: IDENT EQUALS LPAREN INT\n\nThis '(' is not closed. Expected an operator or ')'.\n\ndocument: IDENT EQUALS INT PLUS\n\nExpected a value after this operator.\nEOF", "", desc="新しいエラー状態のメッセージ")
    s.write("test/test_arith.ml", '''open Confl

let show src =
  match Confl.parse_string src with
  | Ok doc -> print_endline (Ast.show_document doc)
  | Error e -> print_endline (Confl.string_of_error e)

let%expect_test "precedence and associativity" =
  show "a = 1 - 2 - 3";
  [%expect {| |}];
  show "a = 2 + 3 * 4";
  [%expect {| |}];
  show "a = -(x + 1)";
  [%expect {| |}]

let%expect_test "binary minus without spaces" =
  show "a = x-1";
  [%expect {| |}];
  show "a = 2 - -3";
  [%expect {| |}]
''')
    s.bash("dune build @runtest 2>&1 | head -60", """\
File "test/test_arith.ml", line 1, characters 0-0:
diff --git a/_build/default/test/test_arith.ml b/_build/default/test/test_arith.ml.corrected
--- a/_build/default/test/test_arith.ml
+++ b/_build/default/test/test_arith.ml.corrected
@@ -9,18 +9,18 @@
 let%expect_test "precedence and associativity" =
   show "a = 1 - 2 - 3";
-  [%expect {| |}];
+  [%expect {| [{ key = "a"; value = (Binop (Sub, (Binop (Sub, (Int 1), (Int 2))), (Int 3))) }] |}];
   show "a = 2 + 3 * 4";
-  [%expect {| |}];
+  [%expect {| [{ key = "a"; value = (Binop (Add, (Int 2), (Binop (Mul, (Int 3), (Int 4))))) }] |}];
   show "a = -(x + 1)";
-  [%expect {| |}]
+  [%expect {| [{ key = "a"; value = (Neg (Binop (Add, (Ref "x"), (Int 1)))) }] |}]

 let%expect_test "binary minus without spaces" =
   show "a = x-1";
-  [%expect {| |}];
+  [%expect {| [{ key = "a"; value = (Ref "x-1") }] |}];
   show "a = 2 - -3";
-  [%expect {| |}]
+  [%expect {| [{ key = "a"; value = (Binop (Sub, (Int 2), (Int -3))) }] |}]""", desc="ビルドとテスト", secs=8.0)
    s.say(
        "優先順位と結合性は期待どおり（`1 - 2 - 3` は左結合、`*` が `+` より強い）。でも "
        "`x-1` が変です：`Ref \"x-1\"`、つまり名前として読まれています。既存の `ident` がハイフン"
        "を許しているので（`base-timeout` のようなキーのため）、これは字句解析の仕様どおりです。"
        "既存の設定ファイルを壊さないためにこのままにして、引き算は空白で区切る、とドキュメントに"
        "書くのが妥当だと思います。\n\n"
        "もう一つの `2 - -3` は `Int -3` になっています。結果は正しいものの、レキサーの "
        "`'-'? digit+` が負の数をリテラルとして食べているせいで、`2 -3` のように空白の位置が変わ"
        "ると："
    )
    s.bash("echo 'a = 2 -3' > /tmp/t.confl && dune exec bin/confl.exe -- check /tmp/t.confl", """\
/tmp/t.confl:1:7: Expected a new line or '}' after this value. Did you forget a '=' before the next key?""",
           code=1, desc="`2 -3` を試す")
    s.say(
        "やはり構文エラーです：`2 -3` が `INT 2` `INT -3` と字句化され、二項演算子が現れない。"
        "レキサーから符号を外して、負の数は単項マイナスで表します。既存の設定の `retries = -1` が"
        "同じ AST（`Int -1`）になるように、`Neg (Int n)` はパーサで `Int (-n)` に畳み込みます——"
        "既存の `negative literal` テストがそれを確認してくれます。"
    )
    s.edit("src/lexer.mll", "  | '-'? digit+ as n { INT (int_of_string n) }", "  | digit+ as n { INT (int_of_string n) }")
    s.edit("src/parser.mly", "  | MINUS v = value %prec UMINUS { Neg v }",
           "  | MINUS v = value %prec UMINUS { match v with Int n -> Int (-n) | v -> Neg v }")
    s.edit("test/test_arith.ml", '''  show "a = 2 - -3";
  [%expect {| |}]''', '''  show "a = 2 - -3";
  [%expect {| |}];
  show "a = 2 -3";
  [%expect {| |}]''')
    s.bash("dune build @runtest 2>&1 | head -40; dune promote", """\
File "test/test_arith.ml", line 1, characters 0-0:
diff --git a/_build/default/test/test_arith.ml b/_build/default/test/test_arith.ml.corrected
[... expect diffs for 7 blocks ...]
Promoting _build/default/test/test_arith.ml.corrected to test/test_arith.ml.""", desc="期待値を確定", secs=8.0)
    s.read("test/test_arith.ml", '''open Confl

let show src =
  match Confl.parse_string src with
  | Ok doc -> print_endline (Ast.show_document doc)
  | Error e -> print_endline (Confl.string_of_error e)

let%expect_test "precedence and associativity" =
  show "a = 1 - 2 - 3";
  [%expect {| [{ key = "a"; value = (Binop (Sub, (Binop (Sub, (Int 1), (Int 2))), (Int 3))) }] |}];
  show "a = 2 + 3 * 4";
  [%expect {| [{ key = "a"; value = (Binop (Add, (Int 2), (Binop (Mul, (Int 3), (Int 4))))) }] |}];
  show "a = -(x + 1)";
  [%expect {| [{ key = "a"; value = (Neg (Binop (Add, (Ref "x"), (Int 1)))) }] |}]

let%expect_test "binary minus without spaces" =
  show "a = x-1";
  [%expect {| [{ key = "a"; value = (Ref "x-1") }] |}];
  show "a = 2 - -3";
  [%expect {| [{ key = "a"; value = (Binop (Sub, (Int 2), (Int -3))) }] |}];
  show "a = 2 -3";
  [%expect {| [{ key = "a"; value = (Binop (Sub, (Int 2), (Int 3))) }] |}]
''')
    s.bash("dune build @runtest && dune build @fmt", "", desc="テストとフォーマット", secs=14.0)
    s.say(
        "全部通りました（`@runtest` には `@check-messages` も含まれます）。\n\n"
        "まとめ：\n"
        "- `+ - * /`、単項マイナス、括弧。衝突は `%left PLUS MINUS` / `%left STAR SLASH` / "
        "`%nonassoc UMINUS` で解決。三段構成（expr/term/factor）は `parser.messages` の 23 "
        "エントリを無効にするので採用せず、優先順位宣言なら既存 41 エントリがそのまま生きます。\n"
        "- レキサーが `'-'? digit+` で負の数をリテラルにしていたため `2 -3` が構文エラーになって"
        "いた。符号はレキサーから外し、`-<整数>` はパーサで `Int` に畳み込み（既存設定の AST は"
        "不変）。\n"
        "- 新しいエラー状態 3 つのメッセージを追加。\n"
        "- テストは ppx_expect、OCaml 4.14 の範囲の機能だけ。\n\n"
        "注意点として、`x-1` は今まで通り名前 `x-1` と読まれます（キーにハイフンを許しているた"
        "め）。引き算は空白で区切る必要がある、と README に書いておくべきです。\n\n"
        "まだやっていないこと：評価側。`1 / 0` は今 OCaml の `Division_by_zero` 例外がそのまま"
        "上がって、位置情報のないまま設定の読み込みが落ちます。`loc` 付きのエラーにする必要があり"
        "ます。\n\n"
        "それと一つ確認したいのですが、`/` は OCaml と同じ 0 方向への切り捨てにしています"
        "（`-7 / 2 = -3`）。Python のような床除算（`-4`）の方がよければ言ってください。"
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "OCaml/dune/Menhir with ppx_expect, whole session in Japanese",
        "three rules in the first prompt (keep Menhir; OCaml 4.14, no 5.x features; ppx_expect)",
        "Menhir conflicts as a build error (--strict, exit 1)",
        "expr/term/factor rewrite abandoned because it invalidated hand-written parser.messages (failure behind `| head`)",
        "precedence declarations chosen; missing messages for new error states",
        "negative literals in the lexer broke `2 -3`",
        "a pipeline `...; dune promote` and a final pass",
        "todo (division by zero) and open question (truncating vs floor division) at the end",
    ],
    "language": "ja",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "project_fact"],
         "match": [["4.14"], ["5.x", "エフェクト", "Domain"]],
         "note": "CI のイメージが OCaml 4.14 なので 5.x の機能（エフェクト、Domain）は使わない。"},
        {"id": "c2", "type": "preference", "types": ["preference", "constraint"],
         "match": [["ppx_expect"]],
         "note": "テストは既存と同じく ppx_expect で書く。"},
        {"id": "c3", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["Menhir"], ["このまま", "まま"]],
         "note": "パーサは今の Menhir のまま。"},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "decision"],
         "match": [["三段", "expr/term/factor", "term"], ["parser.messages", "messages", "23"]],
         "note": "expr/term/factor の三段構成は parser.messages の手書きエントリ 23 個を無効にする"
                 "ので取りやめ。"},
        {"id": "d1", "type": "decision",
         "match": [["%left", "優先順位宣言", "%nonassoc"], ["messages", "41", "既存"]],
         "note": "衝突は %left / %nonassoc UMINUS の優先順位宣言で解決：既存の 41 エントリがそのまま"
                 "有効で、新しいエラー状態 3 つにメッセージを足すだけで済む。"},
        {"id": "b1", "type": "bug_note",
         "match": [["'-'? digit+", "負の数", "レキサー"], ["2 -3", "INT -3", "単項マイナス"]],
         "note": "レキサーが '-'? digit+ で負の数をリテラルにしていたため 2 -3 が構文エラーに。符号を"
                 "外し、-<整数> はパーサで Int に畳み込む。"},
        {"id": "x1", "type": "project_fact", "required": False,
         "match": [["x-1"], ["ハイフン", "名前", "空白"]],
         "note": "ident がハイフンを許すので x-1 は名前。引き算は空白で区切る必要がある（README に書く）。"},
        {"id": "x2", "type": "project_fact", "required": False,
         "match": [["--strict"], ["衝突", "エラー"]],
         "note": "Menhir は --strict 付きなので衝突はビルドエラー。@check-messages が @runtest に含まれる。"},
        {"id": "t1", "type": "todo",
         "match": [["Division_by_zero", "1 / 0"], ["loc", "位置"]],
         "note": "評価時の 1 / 0 が Division_by_zero 例外のまま落ちる。loc 付きのエラーにする。"},
        {"id": "q1", "type": "open_question", "types": ["open_question", "decision"],
         "match": [["切り捨て", "床除算"], ["-7 / 2", "Python"]],
         "note": "/ は 0 方向への切り捨て（-7 / 2 = -3）。Python のような床除算にするか確認待ち。"},
        {"id": "v1", "type": "verified_command", "command": "dune build @runtest && dune build @fmt"},
    ],
    "secrets": [],
    "forbidden": [],
}
