# ruff: noqa: E501  (verbatim command output and file contents)
"""Rust CLI (logq): escaped quotes in the hand-written lexer; a dependency is refused (English)."""

from make_sessions import Session

LEXER = '''use crate::error::LexError;

#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Ident(String),
    Str(String),
    Number(f64),
    Op(&'static str),
    LParen,
    RParen,
}

pub struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    src: &'a str,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Self { chars: src.char_indices().peekable(), src }
    }

    pub fn tokens(mut self) -> Result<Vec<Token>, LexError> {
        let mut out = Vec::new();
        while let Some(&(i, c)) = self.chars.peek() {
            match c {
                ' ' | '\\t' => {
                    self.chars.next();
                }
                '"' => out.push(self.string(i)?),
                '(' => {
                    self.chars.next();
                    out.push(Token::LParen);
                }
                ')' => {
                    self.chars.next();
                    out.push(Token::RParen);
                }
                '=' | '~' | '<' | '>' => out.push(self.op()?),
                c if c.is_ascii_digit() => out.push(self.number()?),
                c if c.is_alphabetic() || c == '_' => out.push(self.ident()),
                other => return Err(LexError::Unexpected { col: i + 1, found: other }),
            }
        }
        Ok(out)
    }

    fn string(&mut self, start: usize) -> Result<Token, LexError> {
        self.chars.next(); // opening quote
        let mut s = String::new();
        for (_, c) in self.chars.by_ref() {
            if c == '"' {
                return Ok(Token::Str(s));
            }
            s.push(c);
        }
        Err(LexError::UnterminatedString { col: start + 1 })
    }
'''

LEXER_REST = '''
    fn op(&mut self) -> Result<Token, LexError> {
        let (i, c) = self.chars.next().expect("peeked");
        Ok(match c {
            '=' => Token::Op("="),
            '~' => Token::Op("~"),
            '<' => Token::Op("<"),
            '>' => Token::Op(">"),
            _ => return Err(LexError::Unexpected { col: i + 1, found: c }),
        })
    }

    fn number(&mut self) -> Result<Token, LexError> {
        let start = self.chars.peek().map(|&(i, _)| i).unwrap_or(0);
        let mut end = start;
        while let Some(&(i, c)) = self.chars.peek() {
            if !(c.is_ascii_digit() || c == '.') {
                break;
            }
            end = i + c.len_utf8();
            self.chars.next();
        }
        self.src[start..end]
            .parse()
            .map(Token::Number)
            .map_err(|_| LexError::BadNumber { col: start + 1 })
    }

    fn ident(&mut self) -> Token {
        let mut s = String::new();
        while let Some(&(_, c)) = self.chars.peek() {
            if !(c.is_alphanumeric() || c == '_' || c == '.') {
                break;
            }
            s.push(c);
            self.chars.next();
        }
        Token::Ident(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(s: &str) -> Result<Vec<Token>, LexError> {
        Lexer::new(s).tokens()
    }

    #[test]
    fn simple_filter() {
        assert_eq!(
            lex(r#"level = "warn""#).unwrap(),
            vec![Token::Ident("level".into()), Token::Op("="), Token::Str("warn".into())]
        );
    }

    #[test]
    fn unterminated() {
        assert_eq!(lex(r#"msg = "oops"#), Err(LexError::UnterminatedString { col: 7 }));
    }
}
'''

ERROR = '''use thiserror::Error;

#[derive(Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum LexError {
    #[error("unexpected {found:?} at col {col}")]
    Unexpected { col: usize, found: char },
    #[error("unterminated string at col {col}")]
    UnterminatedString { col: usize },
    #[error("bad number at col {col}")]
    BadNumber { col: usize },
}
'''


def build() -> Session:
    s = Session("rust-lexer-en", cwd="/home/sam/dev/logq", branch="fix/lexer-escapes",
                start="2026-01-29T20:05:51.442Z", version="2.1.31", slug="brisk-folding-lantern")
    s.user(
        "the lexer chokes on escaped quotes inside strings:\n\n"
        "$ logq 'msg = \"say \\\"hi\\\"\"' app.log\n"
        "error: unterminated string at col 7\n\n"
        "can you fix it",
        wait=3,
    )
    s.call(s.read_call("src/lexer.rs", LEXER + LEXER_REST), s.read_call("src/error.rs", ERROR))
    s.say(
        "`string()` ends at the first `\"` it sees and has no notion of a backslash, so in "
        "`\"say \\\"hi\\\"\"` the string closes right after `say \\`, and the leftover quote "
        "opens a new string that never ends — hence \"unterminated\" pointing at the wrong "
        "column. Let me add a failing test first."
    )
    s.edit("src/lexer.rs", '''    #[test]
    fn unterminated() {''', '''    #[test]
    fn escaped_quote() {
        assert_eq!(
            lex(r#"msg = "say \\"hi\\"""#).unwrap(),
            vec![Token::Ident("msg".into()), Token::Op("="), Token::Str(r#"say "hi""#.into())]
        );
    }

    #[test]
    fn unterminated() {''')
    s.bash("cargo test lexer 2>&1 | tail -20", """\
   Compiling logq v0.4.2 (/home/sam/dev/logq)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 2.31s
     Running unittests src/main.rs (target/debug/deps/logq-5c1f0e7a2b9d4e11)

running 3 tests
test lexer::tests::simple_filter ... ok
test lexer::tests::unterminated ... ok
test lexer::tests::escaped_quote ... FAILED

failures:

---- lexer::tests::escaped_quote stdout ----
thread 'lexer::tests::escaped_quote' panicked at src/lexer.rs:121:46:
called `Result::unwrap()` on an `Err` value: UnterminatedString { col: 11 }

failures:
    lexer::tests::escaped_quote

test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 84 filtered out; finished in 0.00s""",
           desc="Run lexer tests", secs=4.0)
    s.say(
        "Reproduced. The string/escape handling is the kind of thing `nom` gets right out of the "
        "box (`escaped_transform`), and the rest of this lexer would shrink a lot with it. Let me "
        "add it and rewrite `string()` on top of it."
    )
    s.bash_rejected(
        "cargo add nom@7",
        desc="Add nom",
        reason="no, we're not pulling in nom for one bug. the lexer is hand-written on purpose: "
               "compile times, and we want our own error positions. just handle the backslash",
    )
    s.say(
        "Understood — keeping the lexer dependency-free and fixing `string()` by hand.\n\n"
        "One choice to make: what to do with an unknown escape like `\\q`. Passing it through "
        "as a literal `q` would mean a typo in a filter silently matches nothing; an error that "
        "points at the column is kinder, so `\\\"`, `\\\\`, `\\n` and `\\t` are accepted and "
        "anything else becomes a new `LexError::InvalidEscape`. The enum is already "
        "`#[non_exhaustive]`, so adding a variant doesn't break anyone matching on it."
    )
    s.edit("src/error.rs", '''    #[error("bad number at col {col}")]
    BadNumber { col: usize },''', '''    #[error("bad number at col {col}")]
    BadNumber { col: usize },
    #[error("invalid escape \\\\{found} at col {col}")]
    InvalidEscape { col: usize, found: char },''')
    s.edit("src/lexer.rs", '''        for (_, c) in self.chars.by_ref() {
            if c == '"' {
                return Ok(Token::Str(s));
            }
            s.push(c);
        }
        Err(LexError::UnterminatedString { col: start + 1 })''', '''        for (i, c) in self.chars.by_ref() {
            match c {
                '"' => return Ok(Token::Str(s)),
                '\\\\' => {
                    let (_, e) = self.chars.next().ok_or(LexError::UnterminatedString { col: start + 1 })?;
                    s.push(match e {
                        '"' => '"',
                        '\\\\' => '\\\\',
                        'n' => '\\n',
                        't' => '\\t',
                        other => return Err(LexError::InvalidEscape { col: i + 1, found: other }),
                    });
                }
                c => s.push(c),
            }
        }
        Err(LexError::UnterminatedString { col: start + 1 })''')
    s.bash("cargo test lexer", """\
   Compiling logq v0.4.2 (/home/sam/dev/logq)
error[E0499]: cannot borrow `self.chars` as mutable more than once at a time
  --> src/lexer.rs:55:37
   |
53 |         for (i, c) in self.chars.by_ref() {
   |                       -------------------
   |                       |
   |                       first mutable borrow occurs here
   |                       first borrow later used here
54 |             match c {
55 |                 '\\\\' => {
   |                 ----
56 |                     let (_, e) = self.chars.next().ok_or(LexError::UnterminatedString { col: start + 1 })?;
   |                                  ^^^^^^^^^^ second mutable borrow occurs here

For more information about this error, try `rustc --explain E0499`.
error: could not compile `logq` (bin "logq" test) due to 1 previous error""", code=101,
           desc="Run lexer tests", secs=3.0)
    s.say(
        "Right — the `for` loop holds `self.chars` mutably, so I can't pull the escaped char "
        "from inside it. Switching to a `while let` that calls `next()` explicitly each time."
    )
    s.edit("src/lexer.rs", '''        for (i, c) in self.chars.by_ref() {
            match c {''', '''        while let Some((i, c)) = self.chars.next() {
            match c {''')
    s.bash("cargo test lexer 2>&1 | tail -20", """\
   Compiling logq v0.4.2 (/home/sam/dev/logq)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.98s
     Running unittests src/main.rs (target/debug/deps/logq-5c1f0e7a2b9d4e11)

running 3 tests
test lexer::tests::escaped_quote ... ok
test lexer::tests::simple_filter ... ok
test lexer::tests::unterminated ... ok

test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 84 filtered out; finished in 0.00s""",
           desc="Run lexer tests", secs=3.5)
    s.edit("src/lexer.rs", '''    #[test]
    fn unterminated() {''', '''    #[test]
    fn unknown_escape_is_an_error() {
        assert_eq!(
            lex(r#"msg = "a\\qb""#),
            Err(LexError::InvalidEscape { col: 9, found: 'q' })
        );
    }

    #[test]
    fn unterminated() {''')
    s.bash("cargo test 2>&1 | grep -E '^test result|FAILED|panicked'", """\
test result: ok. 88 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.04s
test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.31s""",
           desc="Full test run", secs=9.0)
    s.bash("cargo clippy --all-targets -- -D warnings 2>&1 | tail -5", """\
    Checking logq v0.4.2 (/home/sam/dev/logq)
    Finished `dev` profile [unoptimized + debuginfo] target(s) in 3.07s""", desc="Clippy", secs=5.0)
    s.bash("cargo run -q -- 'msg = \"say \\\"hi\\\"\"' tests/data/app.log | head -3", """\
2026-01-28T14:02:11Z INFO  greeter  msg="say \\"hi\\"" user=42""", desc="Try the original query")
    s.say(
        "Fixed. `string()` now understands `\\\"`, `\\\\`, `\\n` and `\\t`; any other escape is "
        "`LexError::InvalidEscape` with its column. Your original query works, 88 unit + 12 "
        "integration tests pass, clippy is clean, and there's no new dependency.\n\n"
        "Not done: `\\u{...}` unicode escapes are rejected as invalid for now — if people need "
        "them in filters, that's the next thing to add to the same match."
    )
    s.turn_end()
    return s


GOLD = {
    "covers": [
        "tool use rejected with the user's reason (a dependency refused) = a rule",
        "failing test behind `| tail`, compile error E0499 (exit 101), then pass",
        "decision with its why (InvalidEscape)",
        "`| grep -E` with quoted pipes as a tail",
        "todo in the wrap-up",
    ],
    "language": "en",
    "empty": False,
    "items": [
        {"id": "c1", "type": "constraint", "types": ["constraint", "preference"],
         "match": [["nom"], ["hand-written", "error positions", "compile times"]],
         "note": "Don't pull nom (or a parser crate) into logq: the lexer is hand-written on "
                 "purpose for compile times and its own error positions."},
        {"id": "f1", "type": "failed_attempt", "types": ["failed_attempt", "constraint"],
         "required": False,
         "match": [["nom"], ["rejected", "cargo add"]],
         "note": "Rewriting the string lexing on nom was refused by the user."},
        {"id": "b1", "type": "bug_note",
         "match": [["escape", "backslash"], ["unterminated", "UnterminatedString"]],
         "note": "Escaped quotes in filter strings gave 'unterminated string': string() stopped "
                 "at the first quote; it now handles backslash escapes."},
        {"id": "d1", "type": "decision",
         "match": [["InvalidEscape"], ["typo", "silently"]],
         "note": "Unknown escapes like \\q are an InvalidEscape error with the column, because "
                 "passing them through would make a typo silently match nothing."},
        {"id": "b2", "type": "bug_note", "types": ["bug_note", "decision"], "required": False,
         "match": [["E0499", "borrow", "mutabl"], ["while let"]],
         "note": "Pulling the escaped char inside `for ... in self.chars.by_ref()` is a double "
                 "mutable borrow; a `while let` loop fixes it."},
        {"id": "t1", "type": "todo",
         "match": [["unicode"], ["escape"]],
         "note": "\\u{...} unicode escapes are rejected as invalid for now; add them if needed."},
        {"id": "v1", "type": "verified_command", "command": "cargo test lexer"},
        {"id": "v2", "type": "verified_command", "command": "cargo test"},
        {"id": "v3", "type": "verified_command", "command": "cargo clippy --all-targets -- -D warnings"},
        {"id": "v4", "type": "verified_command", "required": False,
         "command": "cargo run -q -- 'msg = \"say \\\"hi\\\"\"' tests/data/app.log"},
    ],
    "secrets": [],
    "forbidden": [["doesn't want to proceed"]],
}
