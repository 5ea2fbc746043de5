"""The multilingual embedders, on the real packaged models: a query in one language finds
memories written in another, one setting away from the default."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import run_cli, run_json

import engram
from engram.embedders import EmbedderError, get_embedder
from engram.embedders.base import require_distribution
from engram.text.language import is_english

#: A developer's notes in four languages, and English distractors sharing their words.
NOTES = {
    "lead": "Руководитель моей команды — Марина Котова.",
    "secrets": "Секреты храним в HashiCorp Vault, в репозиторий их класть нельзя.",
    "invoices": "Rechnungsnummern müssen lückenlos fortlaufend sein.",
    "thumbnails": "El servicio de miniaturas se queda sin memoria con imágenes TIFF grandes.",
    "deploy": "Deploy the storefront with vercel deploy --prod from the main branch.",
    "lead-distractor": "The lead time for a production change is two days.",
    "memory-distractor": "Keep memory notes short: one fact per note.",
}
#: (query, the note that answers it): across languages, and within one.
ASKED = [
    ("who is my team lead", "lead"),
    ("do invoice numbers have to be gapless?", "invoices"),
    ("why does the thumbnail service run out of memory", "thumbnails"),
    ("where should secrets be stored", "secrets"),
    ("¿quién dirige mi equipo?", "lead"),
]


@pytest.fixture(scope="module")
def multilingual_store(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("multilingual") / "memory.db"
    service = engram.open(path, embedder="multilingual")
    ids = {key: service.save(text).memory.id for key, text in NOTES.items()}
    yield service, ids
    service.close()


@pytest.mark.parametrize(("query", "answer"), ASKED)
def test_a_query_finds_the_note_written_in_another_language(multilingual_store, query, answer):
    service, ids = multilingual_store
    results = service.search(query, k=3).results
    assert results and results[0].memory.id == ids[answer], [r.memory.content for r in results]


def test_the_english_only_default_misses_them(tmp_path):
    """Why the setting exists: the bundled MiniLM cannot match across languages."""
    service = engram.open(tmp_path / "memory.db", embedder="bundled")
    try:
        ids = {key: service.save(text).memory.id for key, text in NOTES.items()}
        hits = 0
        for query, answer in ASKED:
            results = service.search(query, k=3, pools="vector").results
            hits += bool(results) and results[0].memory.id == ids[answer]
    finally:
        service.close()
    assert hits <= 2


def test_use_vectors_are_unit_and_independent_of_batch_mates():
    use = get_embedder("use-multilingual")
    texts = list(NOTES.values())
    batch = use.embed(texts)
    assert batch.shape == (len(texts), 512) and batch.dtype == np.float32
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-5)
    alone = np.stack([use.embed([t])[0] for t in texts])
    assert np.allclose(batch, alone, atol=1e-5)
    assert np.allclose(use.embed_query(texts[0]), alone[0], atol=1e-5)


def test_combined_query_leans_on_the_multilingual_model_outside_english():
    """Stored halves weigh the same; a Russian query takes its cosine mostly from USE."""
    combined = get_embedder("multilingual")
    note = combined.embed([NOTES["invoices"]])[0]
    assert combined.dim == 384 + 512 and np.isclose(np.linalg.norm(note), 1.0, atol=1e-5)
    english = combined.embed_query("who is my team lead")
    russian = combined.embed_query("кто мой тимлид")
    for vector in (english, russian):
        assert np.isclose(np.linalg.norm(vector), 1.0, atol=1e-5)
    assert np.isclose(np.linalg.norm(english[:384]) ** 2, 0.5, atol=1e-4)  # MiniLM's share
    assert np.isclose(np.linalg.norm(russian[:384]) ** 2, 0.1, atol=1e-4)


def test_e5_reads_across_languages():
    e5 = get_embedder("e5-multilingual")
    notes = e5.embed([NOTES["lead"], NOTES["deploy"], NOTES["invoices"]])
    assert notes.shape == (3, 384)
    scores = notes @ e5.embed_query("who is my team lead")
    assert int(np.argmax(scores)) == 0


@pytest.mark.parametrize(("text", "english"), [
    ("who is my team lead", True),
    ("fix ImportError in the café module", True),
    ("Wer ist der Teamleiter?", False),
    ("¿por qué falló la sincronización?", False),
    ("как снять блокировку стейта", False),
    ("本番環境への terraform apply はどうやる？", False),
])
def test_is_english(text, english):
    assert is_english(text) is english


def test_a_missing_model_package_is_one_actionable_line():
    with pytest.raises(EmbedderError) as caught:
        require_distribution("no-such-engram-model", "1.0", "multilingual", "multilingual")
    message = str(caught.value)
    assert "\n" not in message
    assert "pip install 'engram-recall[multilingual]'" in message
    assert "no-such-engram-model==1.0" in message


def test_switching_to_multilingual_is_one_setting_and_a_reindex(cli_env):
    env = {k: v for k, v in cli_env.items() if k != "ENGRAM_EMBEDDER"}
    run_json(env, "add", NOTES["lead"])
    run_json(env, "add", NOTES["lead-distractor"])
    typo = run_cli(env, "config", "set", "embedder", "multilingul")
    assert typo.returncode != 0 and "Traceback" not in typo.stderr
    assert "multilingual" in typo.stderr and len(typo.stderr.strip().splitlines()) == 1
    assert run_cli(env, "config", "set", "embedder", "multilingual").returncode == 0
    proc = run_cli(env, "reindex")
    assert proc.returncode == 0, proc.stderr
    assert "multilingual" in proc.stdout
    found = run_json(env, "search", "who is my team lead")
    assert found["results"][0]["memory"]["content"] == NOTES["lead"]
    doctor = json.loads(run_cli(env, "doctor", "--json").stdout)
    [embedder] = [c for c in doctor["checks"] if c["name"] == "embedder"]
    assert embedder["status"] == "ok" and "use-multilingual" in embedder["detail"]


def test_each_engine_stores_and_searches_the_wider_vectors(store_target):
    """896 numbers per vector: SQLite's blobs and pgvector's halfvec index take them alike."""
    service = engram.open(store_target, embedder="multilingual")
    try:
        lead = service.save(NOTES["lead"]).memory.id
        service.save(NOTES["lead-distractor"])
        service.save(NOTES["invoices"])
        results = service.search("who is my team lead", k=2).results
    finally:
        service.close()
    assert results[0].memory.id == lead
