"""engram.text against a real SQLite FTS5 table, tokenised the way the store tokenises."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engram.text import (
    MAX_QUERY_GROUPS,
    STOP_WORDS,
    detect_language,
    estimate_tokens,
    fts_query,
    index_terms,
    normalize_for_dedup,
    query_terms,
)

TOKENIZER = "unicode61 remove_diacritics 2"


class Index:
    """A throwaway FTS5 index fed through index_terms and queried through fts_query."""

    def __init__(self, texts: list[str]) -> None:
        self.conn = sqlite3.connect(":memory:")
        self.conn.execute(f"CREATE VIRTUAL TABLE mem USING fts5(terms, tokenize='{TOKENIZER}')")
        self.conn.executemany(
            "INSERT INTO mem(rowid, terms) VALUES (?, ?)",
            [(i, index_terms(text)) for i, text in enumerate(texts)],
        )

    def match(self, expression: str) -> set[int]:
        rows = self.conn.execute(
            "SELECT rowid FROM mem WHERE mem MATCH ? ORDER BY bm25(mem)", (expression,)
        )
        return {rowid for (rowid,) in rows}

    def search(self, query: str, mode: str = "and") -> set[int]:
        expression = fts_query(query_terms(query), mode)
        return set() if expression is None else self.match(expression)


@pytest.fixture(scope="module")
def fts() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE probe USING fts5(terms, tokenize='{TOKENIZER}')")
    conn.execute("INSERT INTO probe(terms) VALUES ('alpha beta gamma')")
    yield conn
    conn.close()


def run_match(conn: sqlite3.Connection, expression: str | None) -> None:
    if expression is not None:
        conn.execute("SELECT count(*) FROM probe WHERE probe MATCH ?", (expression,)).fetchall()


# --- recall: what a user expects to find ------------------------------------------------------


def test_english_stemming_finds_every_inflection() -> None:
    idx = Index(["We are deploying the billing API to production", "Unrelated note about cats"])
    for query in ("deploy", "deploying", "deployed", "deploys", "Deployment of billing"):
        assert 0 in idx.search(query, "or"), query
    for query in ("deploy", "deployed", "deploys", "billing deployed"):
        assert idx.search(query) == {0}, query


def test_russian_morphology() -> None:
    idx = Index(["Подключение к базе данных падает после деплоя", "Кэш на Redis"])
    for query in ("база данных", "базы данных", "базе данных", "базой данных", "подключения"):
        assert idx.search(query) == {0}, query


def test_mixed_script_sentence_stems_each_script_separately() -> None:
    terms = index_terms("Используем useEffect для загрузки базы данных").split()
    assert {"useeffect", "use", "effect", "баз", "дан"} <= set(terms)
    idx = Index(["Используем useEffect для загрузки базы данных"])
    assert idx.search("useEffect") == {0}
    assert idx.search("база данных useEffect") == {0}


def test_identifier_whole_and_parts() -> None:
    assert index_terms("getUserById") == "getuserbyid get user by id"
    assert index_terms("snake_case_name") == "snakecasename snake case name"
    idx = Index(["Always call getUserById through the cache layer", "max_retry_count is 5"])
    for query in ("getUserById", "getuserbyid", "get_user_by_id", "GetUserByID", "user by id"):
        assert idx.search(query) == {0}, query
    for query in ("max_retry_count", "maxRetryCount", "retry count", "retries"):
        assert idx.search(query) == {1}, query


def test_file_names_and_paths() -> None:
    assert index_terms("src/auth/session.ts") == "sessionts src auth session ts"
    idx = Index(
        [
            "Session refresh lives in src/auth/session.ts",
            "Routing is in app/router.py",
            "The session.js shim is legacy",
        ]
    )
    for query in ("session.ts", "src/auth/session.ts", "auth/session.ts", "./src/auth/session.ts"):
        assert idx.search(query) == {0}, query
    assert idx.search("session.ts:42", "or") == {0}
    assert idx.search("router.py") == {1}
    assert idx.search("session.js") == {2}
    assert idx.search("session") == {0, 2}


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("ECONNREFUSED", "Postgres gives ECONNREFUSED when the VPN is down"),
        ("TS2345", "TS2345: Argument of type string is not assignable"),
        ("E11000", "Mongo E11000 duplicate key error on email"),
        ("0x80070005", "Windows installer fails with 0x80070005 access denied"),
        ("HTTP 502", "Nginx answers HTTP 502 during deploys"),
    ],
)
def test_error_codes_are_found_exactly(code: str, text: str) -> None:
    others = ["E11001 is a different error", "HTTP 504 gateway timeout", "TS2322 mismatch"]
    idx = Index([text, *others])
    assert idx.search(code) == {0}


def test_numbers_and_versions() -> None:
    idx = Index(["Upgraded to react 19 and node v20.11.1", "react 18 had the old root API"])
    assert idx.search("react 19") == {0}
    assert idx.search("v20.11.1") == {0}
    assert idx.search("20.11.1") == {0}
    assert idx.search("react") == {0, 1}


def test_negations_and_rules_keep_their_words() -> None:
    rule = "Never push without running the tests"
    feature = "Unit tests for push notifications"
    idx = Index([rule, feature])
    assert idx.search("never push without tests") == {0}
    assert idx.search("unit tests for push notifications") == {1}
    assert idx.search("never push without tests", "or") == {0, 1}
    assert idx.search("push tests") == {0, 1}


def test_negated_contractions_match_spelled_out_negation() -> None:
    idx = Index(["Don't deploy on Fridays", "Deploy whenever CI is green"])
    for query in ("do not deploy", "don't deploy", "dont deploy", "not deploy"):
        assert idx.search(query) == {0}, query
    assert "not" in index_terms("We can't use Redis here").split()


def test_cjk_is_indexed_as_bigrams() -> None:
    idx = Index(["数据库连接失败 after upgrade", "缓存命中率"])
    assert idx.search("数据库") == {0}
    assert idx.search("连接失败") == {0}


def test_non_english_latin_found_by_own_language_and_short_queries() -> None:
    idx = Index(["La base de datos está caída desde la actualización"])
    assert detect_language("La base de datos está caída desde la actualización") == "spanish"
    assert idx.search("la base de datos está caída") == {0}
    assert idx.search("datos") == {0}  # a one-word query is detected as English


def test_a_words_terms_follow_each_texts_language_in_any_order() -> None:
    """Terms of recurring words are cached across texts: never across languages."""
    import engram.text

    german = "Die Datenbank ist nicht erreichbar und die Verbindung wird abgelehnt"
    english = "Workers die when the database is unreachable, Verbindung or not"
    engram.text._RUN_TERMS.clear()
    german_first = [index_terms(german), index_terms(english)]
    engram.text._RUN_TERMS.clear()
    english_first = [index_terms(english), index_terms(german)][::-1]
    assert german_first == english_first
    assert "die" not in german_first[0].split()  # a German stop word
    assert "die" in german_first[1].split()  # an English verb
    assert "verbind" in german_first[0].split()  # German stem, also kept as typed
    assert "verbind" not in german_first[1].split()  # English text: English stem only


def test_and_is_never_broader_than_or() -> None:
    idx = Index(
        [
            "Deploy the auth service with the blue/green script",
            "Auth uses Clerk, not Auth0",
            "The deploy script lives in scripts/deploy.sh",
            "База данных живёт в Postgres 16",
        ]
    )
    queries = ["deploy auth", "clerk auth0", "deploy.sh script", "база postgres", "blue green"]
    for query in queries:
        assert idx.search(query, "and") <= idx.search(query, "or"), query
    assert len(idx.search("deploy auth", "and")) < len(idx.search("deploy auth", "or"))


# --- query analysis ---------------------------------------------------------------------------


def test_query_terms_groups_alternatives() -> None:
    assert query_terms("getUserById") == [("getuserbyid", "get user by id")]
    assert query_terms("the deploying") == [("deploy", "deploying")]
    assert query_terms("src/auth/session.ts")[-1][0] == "sessionts"


def test_stop_words_dropped_but_negations_and_rules_kept() -> None:
    assert query_terms("the of and to is what") == []
    assert query_terms("и в на что это") == []
    for word in ("not", "no", "never", "without", "always", "must", "only"):
        assert word not in STOP_WORDS["english"]
        assert query_terms(word), word
    for word in ("не", "никогда", "без", "всегда", "нельзя"):
        assert word not in STOP_WORDS["russian"]
        assert query_terms(word), word


def test_query_terms_is_bounded() -> None:
    words = " ".join(f"word{i}x" for i in range(500))
    assert len(query_terms(words)) == MAX_QUERY_GROUPS


def test_terms_are_fts_safe() -> None:
    text = "naïve café C++ a_b x² __init__.py «quoted» — dash, ёлка 東京 नमस्ते مرحبا"
    for term in index_terms(text).split():
        assert term.isalnum(), term
        assert term == term.lower()
    for group in query_terms(text):
        for alt in group:
            assert all(word.isalnum() for word in alt.split()), alt


# --- FTS5 expression safety -------------------------------------------------------------------


def test_fts_query_quotes_and_joins() -> None:
    groups = [("deploy", "deploying"), ("auth",)]
    assert fts_query(groups) == '("deploy" OR "deploying") AND "auth"'
    assert fts_query(groups, "or") == '("deploy" OR "deploying") OR "auth"'
    assert fts_query([('say "hi"',)]) == '"say ""hi"""'
    assert fts_query([]) is None
    assert fts_query([("",), ("...",), ("_",)]) is None
    with pytest.raises(ValueError):
        fts_query(groups, "near")


NASTY = [
    '"',
    '"unbalanced',
    'quote " in the middle',
    "NEAR(a b)",
    "NEAR(a b, 3)",
    "a* -b",
    "col:val",
    "terms:deploy",
    "{terms}: x",
    "(",
    ")",
    "((a)",
    "AND OR NOT",
    "a AND",
    "OR b",
    "NOT",
    "^x",
    "+x",
    "a + b",
    "*",
    "🚀🔥 deploy 🎉",
    "🚀",
    "",
    "   ",
    "the and of a",
    "\x00null",
    "x" * 10_000,
    "deploy " * 2_000,
    "\\",
    "'; DROP TABLE mem; --",
    "a:b:c/d\\e.f-g",
]


@pytest.mark.parametrize("query", NASTY)
@pytest.mark.parametrize("mode", ["and", "or"])
def test_nasty_queries_run_without_error(fts: sqlite3.Connection, query: str, mode: str) -> None:
    run_match(fts, fts_query(query_terms(query), mode))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query=st.text(max_size=200), mode=st.sampled_from(["and", "or"]))
def test_any_query_gives_valid_fts5(fts: sqlite3.Connection, query: str, mode: str) -> None:
    run_match(fts, fts_query(query_terms(query), mode))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(groups=st.lists(st.tuples(st.text(max_size=20), st.text(max_size=20)), max_size=6))
def test_any_groups_give_valid_fts5(fts: sqlite3.Connection, groups: list[tuple[str, ...]]) -> None:
    run_match(fts, fts_query(groups, "and"))
    run_match(fts, fts_query(groups, "or"))


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=200))
def test_index_terms_are_always_plain_tokens(text: str) -> None:
    for term in index_terms(text).split():
        assert term.isalnum()


# --- language detection -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("The deploy failed because the server was down", "english"),
        ("Der Server ist nicht erreichbar und die Datenbank antwortet nicht", "german"),
        ("Le serveur ne répond pas depuis la mise à jour", "french"),
        ("El servidor no responde desde la actualización", "spanish"),
        ("Il server non risponde dopo l'aggiornamento", "italian"),
        ("O servidor não responde desde a atualização", "portuguese"),
        ("De server reageert niet sinds de update", "dutch"),
        ("Servern svarar inte efter uppdateringen", "swedish"),
        ("Serwer nie odpowiada po aktualizacji", "polish"),
        ("Сервер не отвечает после обновления", "russian"),
        ("Сервер не одговара јер је база пуна", "serbian"),
        ("Ο διακομιστής δεν αποκρίνεται", "greek"),
        ("الخادم لا يستجيب", "arabic"),
        ("Սերվերը չի պատասխանում", "armenian"),
        ("सर्वर जवाब नहीं दे रहा है", "hindi"),
        ("சேவையகம் பதிலளிக்கவில்லை", "tamil"),
        ("useEffect getUserById ECONNREFUSED", "english"),
        ("", "english"),
    ],
)
def test_detect_language(text: str, language: str) -> None:
    assert detect_language(text) == language


def test_detect_language_is_fast_on_long_text() -> None:
    import time

    text = "Der Server ist nicht erreichbar und die Datenbank antwortet nicht. " * 5_000
    started = time.perf_counter()
    assert detect_language(text) == "german"
    assert time.perf_counter() - started < 0.05


def test_import_is_lazy_about_pystemmer() -> None:
    code = "import sys, engram.text; print('Stemmer' in sys.modules)"
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True
    )
    assert out.stdout.strip() == "False"


# --- small helpers ----------------------------------------------------------------------------


def test_normalize_for_dedup() -> None:
    assert normalize_for_dedup("Auth is Clerk.") == normalize_for_dedup("auth is  clerk")
    assert normalize_for_dedup("“Auth” is Clerk") == normalize_for_dedup('"auth" is clerk')
    assert normalize_for_dedup("  - Auth is Clerk!\n") == "auth is clerk"
    assert normalize_for_dedup("Auth is not Clerk") != normalize_for_dedup("Auth is Clerk")
    assert normalize_for_dedup("use v1.2.3") == "use v1.2.3"


def test_estimate_tokens() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("a" * 400) == 100
    assert estimate_tokens("б" * 400) > estimate_tokens("b" * 400)
