"""A labelled memory is embedded sentence by sentence (engram.embedders.views).

The unit tests use the deterministic fake embedder; the last ones run the bundled model
through a real store, where the recipe has to earn its keep: a question naming a person
finds the memory that holds the answer among that person's other long turns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engram.embedders import get_embedder
from engram.embedders.fake import FakeEmbedder
from engram.embedders.views import SUFFIX, LabelledSentences, views

# --- which texts are read sentence by sentence ---------------------------------------------


def test_a_labelled_memory_is_read_whole_and_sentence_by_sentence() -> None:
    plan = views("Nate: Hey! I adopted a third turtle last weekend.\nAnyway, how are you?")
    assert plan is not None
    parts, weights = plan
    assert parts == [
        "Nate: Hey! I adopted a third turtle last weekend.\nAnyway, how are you?",
        "Nate: Hey!",
        "Nate: I adopted a third turtle last weekend.",
        "Nate: Anyway, how are you?",
    ]
    # Each sentence weighs its length in words; the whole text weighs an average sentence.
    assert weights == [4.0, 1.0, 7.0, 4.0]


@pytest.mark.parametrize("label", ["Decision", "Release notes", "Dr Who's TODO"])
def test_labels_of_one_to_three_words(label: str) -> None:
    plan = views(f"{label}: use Clerk for auth. JWT was dropped.")
    assert plan is not None
    assert plan[0][1:] == [f"{label}: use Clerk for auth.", f"{label}: JWT was dropped."]


def test_a_line_with_its_own_label_keeps_it() -> None:
    """A session digest: "Outcome: …" is not part of the task, so it is not prefixed."""
    plan = views("Task: fix the flaky checkout test\nFiles changed: cart.ts\nOutcome: green.")
    assert plan is not None
    assert plan[0][1:] == [
        "Task: fix the flaky checkout test", "Files changed: cart.ts", "Outcome: green.",
    ]


def test_a_long_document_costs_a_bounded_number_of_runs() -> None:
    from engram.embedders.views import MAX_SENTENCES

    plan = views("Notes: " + " ".join(f"Fact number {i} holds." for i in range(500)))
    assert plan is not None
    parts, weights = plan
    assert len(parts) == len(weights) == MAX_SENTENCES + 1
    assert parts[-1] == f"Notes: Fact number {MAX_SENTENCES - 1} holds."


@pytest.mark.parametrize(
    "text",
    [
        "Nate: just one sentence here.",  # nothing to split
        "Auth is Clerk. Payments go through Stripe.",  # no label
        "Fixed TS2322 in bright-billing: the pool is too small. Raised it to 20.",  # 4 words
        "https://example.com: down. Retry later.",  # a URL, not a label
        "12:30: standup. Then review.",  # a time, not a label
        "ECONNREFUSED 127.0.0.1:5432 in CI. Add a wait loop.",  # no space after the colon
        "Supercalifragilisticexpialidociously long label: one. Two.",  # longer than MAX_LEAD
    ],
)
def test_other_texts_are_read_whole(text: str) -> None:
    assert views(text) is None


# --- the wrapper --------------------------------------------------------------------------


def test_unlabelled_texts_keep_the_models_own_vectors() -> None:
    inner = FakeEmbedder()
    texts = ["Auth is Clerk. Payments go through Stripe.", "Nate: one sentence."]
    np.testing.assert_array_equal(LabelledSentences(inner).embed(texts), inner.embed(texts))


def test_a_labelled_vector_is_the_weighted_mean_of_its_views() -> None:
    inner = FakeEmbedder()
    wrapped = LabelledSentences(inner)
    texts = ["Auth is Clerk.", "Nate: Hey! I adopted a turtle.", "Use pnpm."]
    vectors = wrapped.embed(texts)
    assert vectors.shape == (3, inner.dim) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)
    parts, weights = views(texts[1])  # type: ignore[misc]
    mean = (inner.embed(parts) * np.array(weights)[:, None]).sum(axis=0)
    np.testing.assert_allclose(vectors[1], mean / np.linalg.norm(mean), atol=1e-6)
    # Its neighbours in the batch are untouched and keep their order.
    np.testing.assert_allclose(vectors[[0, 2]], inner.embed([texts[0], texts[2]]), atol=1e-6)


def test_queries_are_embedded_as_they_are() -> None:
    inner = FakeEmbedder()
    query = "Nate: what pets? And which city?"
    np.testing.assert_array_equal(
        LabelledSentences(inner).embed_query(query), inner.embed_query(query)
    )


def test_bad_input_is_refused_like_the_models() -> None:
    wrapped = LabelledSentences(FakeEmbedder())
    with pytest.raises(TypeError, match="single string"):
        wrapped.embed("Nate: Hi. Bye.")
    with pytest.raises(TypeError, match="item 1"):
        wrapped.embed(["Nate: Hi. Bye.", 3])  # type: ignore[list-item]
    assert wrapped.embed([]).shape == (0, wrapped.dim)


def test_the_recipe_is_part_of_the_vector_space_name() -> None:
    """Stores record the name: vectors made without the recipe are re-embedded, not mixed."""
    inner = FakeEmbedder()
    wrapped = LabelledSentences(inner)
    assert wrapped.name == inner.name + SUFFIX
    assert inner.name in wrapped.previous_names


# --- the bundled model ----------------------------------------------------------------


def test_the_bundled_embedder_reads_labelled_memories_by_sentence(bundled: Any) -> None:
    assert isinstance(bundled, LabelledSentences)
    assert bundled.name == "minilm-l6-v2-int8dq-fused" + SUFFIX
    assert bundled.previous_names == (
        "minilm-l6-v2-int8", "minilm-l6-v2-int8dq", "minilm-l6-v2-int8dq-fused",
    )
    assert not isinstance(get_embedder("fake"), LabelledSentences)


CHAT = [
    "Nate: Hey Joanna, long time no see! Work has been crazy this month. I finally adopted"
    " a third turtle last weekend, so the tank is getting crowded. Anyway, how was your trip?",
    "Joanna: Hi Nate! The trip was amazing, we hiked for four days straight. My legs still"
    " hurt. I also finished the first draft of my screenplay on the train back.",
    "Nate: That's awesome. I've been practising for the gaming tournament in Seattle. It's"
    " next Friday and I'm pretty nervous. Let me know if you want to watch the stream.",
    "Joanna: Good luck with it! I can't make it on Friday because of my writing group. We"
    " meet every week at the library downtown. Send me the recording though.",
    "Nate: Thanks! By the way, I started learning to cook vegan food. My coconut milk ice"
    " cream turned out great. I'll bring you some next time.",
    "Joanna: Wow, you cook now? I've been baking sourdough bread every Sunday. It takes"
    " forever but it's worth it. My sister says it's the best she's had.",
    "Nate: Ha, nice. My gaming team won our last match, by the way. We're ranked third in"
    " the league now. Tomorrow we practise again at eight.",
    "Joanna: I'm so happy for you! I got some news too: a producer wants to read my"
    " screenplay. I'm meeting her next month in Los Angeles.",
]
QUESTIONS = [
    ("What pets does Nate have?", 0),
    ("How did Joanna spend her trip?", 1),
    ("Which city is Nate's tournament in?", 2),
    ("Where does Joanna's writing group meet?", 3),
    ("What food has Nate learned to make?", 4),
    ("What does Joanna bake?", 5),
    ("What rank is Nate's team?", 6),
    ("Who wants to read Joanna's screenplay?", 7),
]


def test_a_question_about_a_person_finds_their_turn_by_meaning(
    tmp_path: Path, bundled: Any
) -> None:
    """Vector search alone, in a real store: each question finds the turn that answers it
    first, among the same person's other long turns. The model reading each turn whole
    puts the Seattle turn second (the tournament question is closer to the team turn)."""
    import engram

    with engram.open(tmp_path / "memory.db", embedder=bundled) as mem:
        ids = [r.memory.id for r in mem.save_many([{"content": c} for c in CHAT])]
        for question, answer in QUESTIONS:
            found = [r.memory.id for r in mem.search(question, pools="vector").results]
            assert found[0] == ids[answer], question
