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
    ("¿cómo despliego la tienda a producción?", "deploy"),
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


def test_an_english_pair_scores_minilm_and_every_other_pair_use():
    """Three blocks per memory, chosen by its language, so one dot product picks the model."""
    combined = get_embedder("multilingual")
    minilm, use = get_embedder("bundled"), get_embedder("use-multilingual")
    english_note, german_note = NOTES["deploy"], NOTES["invoices"]
    notes = combined.embed([english_note, german_note])
    assert combined.dim == 384 + 2 * 512
    assert np.allclose(np.linalg.norm(notes, axis=1), 1.0, atol=1e-5)
    assert not notes[0, 384:896].any() and not notes[1, :384].any()

    def score(note: int, query: str) -> float:
        vector = combined.embed_query(query)
        assert np.isclose(np.linalg.norm(vector), 1.0, atol=1e-5)
        return combined.cosine_scale * float(notes[note] @ vector)

    english, german = "how do I deploy the storefront", "müssen Rechnungen lückenlos sein"
    assert np.isclose(score(0, english), float(
        minilm.embed([english_note])[0] @ minilm.embed_query(english)), atol=2e-3)
    assert np.isclose(score(1, english), float(
        use.embed([german_note])[0] @ use.embed_query(english)), atol=2e-3)
    assert np.isclose(score(1, german), combined.OTHER_QUERY_SHARE ** 0.5 * float(
        use.embed([german_note])[0] @ use.embed_query(german)), atol=2e-3)


def test_english_notes_rank_for_english_queries_as_the_default_ranks_them(tmp_path):
    """What the English reader gains from USE's reach costs it nothing."""
    english = [text for text in NOTES.values() if is_english(text)]
    queries = ["who leads the production change", "how do I ship the storefront",
               "how long should notes be"]
    orders = []
    for name in ("bundled", "multilingual"):
        service = engram.open(tmp_path / f"{name}.db", embedder=name)
        try:
            ids = {service.save(text).memory.id: text for text in english}
            orders.append([[ids[r.memory.id] for r in service.search(q, k=3, pools="vector",
                                                                      min_score=0).results]
                           for q in queries])
        finally:
            service.close()
    assert orders[0] == orders[1]


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
    """1,408 numbers per vector: SQLite's blobs and pgvector's halfvec index take them alike."""
    service = engram.open(store_target, embedder="multilingual")
    try:
        lead = service.save(NOTES["lead"]).memory.id
        service.save(NOTES["lead-distractor"])
        service.save(NOTES["invoices"])
        results = service.search("who is my team lead", k=2).results
    finally:
        service.close()
    assert results[0].memory.id == lead


def test_a_store_of_the_earlier_two_block_layout_re_embeds_itself(tmp_path):
    """Vectors of the layout every query read whole are not mixed with the new ones."""
    path = tmp_path / "memory.db"
    service = engram.open(path, embedder="multilingual")
    service.save(NOTES["lead"])
    earlier = "minilm-l6-v2-int8dq-fused+use-multilingual-v3+lead-sentences"
    service.store.set_meta("embedder", f"{earlier}:896")
    service.close()
    service = engram.open(path, embedder="multilingual")
    try:
        assert service.reembed_due and not service.vectors_enabled
        assert service.reindex() == 1
        assert service.vectors_enabled
        assert service.search("who is my team lead", k=1).results[0].memory.content == NOTES["lead"]
    finally:
        service.close()
