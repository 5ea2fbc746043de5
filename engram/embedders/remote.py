"""Embedders that call a service: Ollama (``/api/embed``) and OpenAI-compatible
(``/embeddings``).

Standard library only (``urllib.request``): Engram must install on machines
where no HTTP client package is wanted, and two JSON POST endpoints do not
need one. Every failure (connection refused, timeout, HTTP error, a response
of the wrong shape, vectors whose size changes) becomes an
:class:`EmbedderError` whose message names the service, the URL and the fix.

The vector size is not configured: it is learnt from the first response, and
every later response must match it (a model swapped behind the same name
would otherwise mix two vector spaces in the store).
"""

from __future__ import annotations

import json
import os
import threading
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engram.embedders.base import EmbedderError, check_texts, normalise_rows

if TYPE_CHECKING:
    import numpy as np

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
DEFAULT_TIMEOUT = 60.0
#: Inputs per request: small enough that one request on a CPU-only Ollama
#: finishes well inside the timeout, big enough to amortise the round trip.
OLLAMA_BATCH = 32
#: OpenAI allows 2048 inputs per request; 128 keeps a request body modest.
OPENAI_BATCH = 128
_MAX_ERROR_BODY = 300


def _env(*names: str) -> str | None:
    """The first of ``names`` set to a non-blank value."""
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def _normalise_base_url(url: str) -> str:
    """Accept what users put in these variables: ``host:port``, a trailing slash,
    or ``0.0.0.0`` (a bind address, as in ``OLLAMA_HOST=0.0.0.0`` for ``ollama serve``)."""
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    scheme, rest = url.split("://", 1)
    if rest == "0.0.0.0" or rest.startswith("0.0.0.0:") or rest.startswith("0.0.0.0/"):
        rest = "127.0.0.1" + rest[len("0.0.0.0") :]
    return f"{scheme}://{rest}"


class _RemoteEmbedder:
    """Shared request, batching and validation logic; subclasses speak one API."""

    service = "embedding service"
    kind = "remote"
    default_batch = 32

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        batch_size: int | None = None,
        dim: int | None = None,
    ) -> None:
        if not model.strip():
            raise ValueError("model must be a non-empty model name")
        self.model = model.strip()
        self.base_url = _normalise_base_url(base_url)
        self.timeout = timeout
        self.batch_size = batch_size or self.default_batch
        if self.batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        self._dim = dim
        self._lock = threading.Lock()

    # The store records ``name`` with each vector: the service kind and the
    # model, so switching either is detected as a different vector space.
    @property
    def name(self) -> str:
        return f"{self.kind}:{self.model}"

    @property
    def dim(self) -> int:
        """Vector size. Unknown until the service answered once: reading it then
        embeds a short probe text (one request)."""
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    @dim.setter
    def dim(self, value: int) -> None:
        # Setting it (e.g. from the store's record) turns any later size
        # change into an error instead of a silently mixed store.
        self._dim = int(value)

    # -- HTTP ----------------------------------------------------------------

    def _url(self) -> str:
        raise NotImplementedError

    def _headers(self) -> dict[str, str]:
        return {"Content-Type": "application/json", "Accept": "application/json"}

    def _hint(self) -> str:
        """What to try when the service cannot be reached."""
        return "check that the service is running and the base URL is right"

    def _http_hint(self, status: int) -> str:
        return ""

    def _post(self, payload: dict[str, Any]) -> Any:
        url = self._url()
        body = json.dumps(payload).encode("utf-8")
        request = urllib.request.Request(url, data=body, headers=self._headers(), method="POST")
        where = f"{self.service} at {url} (model {self.model!r})"
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = _error_detail(exc)
            hint = self._http_hint(exc.code)
            raise EmbedderError(
                f"{where} answered HTTP {exc.code} {exc.reason}"
                + (f": {detail}" if detail else "")
                + (f"; {hint}" if hint else "")
            ) from None
        except urllib.error.URLError as exc:
            reason = exc.reason
            if isinstance(reason, ConnectionRefusedError):
                what = "connection refused"
            elif isinstance(reason, TimeoutError):
                what = f"no answer within {self.timeout:g} s"
            else:
                what = str(reason)
            raise EmbedderError(f"cannot reach {where}: {what}; {self._hint()}") from None
        except TimeoutError:
            raise EmbedderError(
                f"{where} did not answer within {self.timeout:g} s; {self._hint()}"
            ) from None
        except (ConnectionError, OSError) as exc:
            raise EmbedderError(f"cannot reach {where}: {exc}; {self._hint()}") from None
        try:
            return json.loads(raw)
        except ValueError:
            snippet = raw[:_MAX_ERROR_BODY].decode("utf-8", "replace")
            raise EmbedderError(
                f"{where} answered with something that is not JSON: {snippet!r}; "
                f"is {self.base_url} really a {self.service}?"
            ) from None

    # -- embedding -------------------------------------------------------------

    def _request(self, texts: list[str]) -> list[Any]:
        """Send one batch; return the raw vectors in input order."""
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` → ``(n, dim)`` float32 unit rows, ``batch_size`` texts per request."""
        import numpy as np

        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = []
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            parts.append(self._to_matrix(self._request(batch), len(batch)))
        return normalise_rows(np.concatenate(parts, axis=0))

    def _to_matrix(self, vectors: list[Any], expected: int) -> np.ndarray:
        """Check the vectors' count, shape and values, and learn/enforce ``dim``."""
        import numpy as np

        where = f"{self.service} at {self._url()} (model {self.model!r})"
        if len(vectors) != expected:
            raise EmbedderError(
                f"{where} returned {len(vectors)} embeddings for {expected} inputs"
            )
        try:
            mat = np.asarray(vectors, dtype=np.float32)
        except (TypeError, ValueError):
            raise EmbedderError(
                f"{where} returned embeddings that are not lists of numbers of one length"
            ) from None
        if mat.ndim != 2 or mat.shape[1] == 0:
            raise EmbedderError(
                f"{where} returned embeddings of shape {mat.shape}, expected (n, dim) numbers"
            )
        if not np.isfinite(mat).all():
            raise EmbedderError(f"{where} returned embeddings containing NaN or infinity")
        if (np.linalg.norm(mat, axis=1) == 0).any():
            raise EmbedderError(f"{where} returned an all-zero embedding")
        got = int(mat.shape[1])
        with self._lock:
            if self._dim is None:
                self._dim = got
            elif got != self._dim:
                raise EmbedderError(
                    f"{where} returned {got}-dimensional embeddings, expected {self._dim}; "
                    "the model behind this name changed: use a new model name or run "
                    "`engram reindex`"
                )
        return mat

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one query → ``(dim,)`` float32 unit vector."""
        if not isinstance(text, str):
            raise TypeError(f"embed_query() takes a str, got {type(text).__name__}")
        return self.embed([text])[0]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"


def _error_detail(exc: urllib.error.HTTPError) -> str:
    """The service's own error message, if the body has one (JSON ``error`` or text)."""
    try:
        raw = exc.read()[:4096]
    except Exception:  # the body is a courtesy; never mask the HTTP error
        return ""
    text = raw.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:_MAX_ERROR_BODY]
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        err = err.get("message") or err
    return str(err if err is not None else data)[:_MAX_ERROR_BODY]


def _bad_shape(service: str, url: str, expected: str, data: Any) -> EmbedderError:
    snippet = json.dumps(data)[:_MAX_ERROR_BODY] if data is not None else "null"
    return EmbedderError(
        f"{service} at {url} answered JSON without {expected}: {snippet}; "
        "is the base URL pointing at the right API?"
    )


class OllamaEmbedder(_RemoteEmbedder):
    """Ollama's ``POST /api/embed`` with ``{"model", "input": [...]}`` → ``{"embeddings"}``.

    Base URL: ``base_url`` argument, else ``$OLLAMA_HOST``, else
    ``$OLLAMA_BASE_URL``, else ``http://127.0.0.1:11434``.
    """

    service = "Ollama"
    kind = "ollama"
    default_batch = OLLAMA_BATCH

    def __init__(self, model: str, base_url: str | None = None, **kwargs: Any) -> None:
        base = base_url or _env("OLLAMA_HOST", "OLLAMA_BASE_URL") or DEFAULT_OLLAMA_URL
        super().__init__(model, base, **kwargs)

    def _url(self) -> str:
        return f"{self.base_url}/api/embed"

    def _hint(self) -> str:
        return (
            "start Ollama (`ollama serve`) or set OLLAMA_HOST to where it listens, "
            "or use ENGRAM_EMBEDDER=bundled"
        )

    def _http_hint(self, status: int) -> str:
        if status == 404:
            return f"is the model pulled? run `ollama pull {self.model}`"
        if status in (400, 500):
            return f"check that {self.model!r} is an embedding model (`ollama show {self.model}`)"
        return ""

    def _request(self, texts: list[str]) -> list[Any]:
        data = self._post({"model": self.model, "input": texts})
        vectors = data.get("embeddings") if isinstance(data, dict) else None
        if not isinstance(vectors, list):
            raise _bad_shape(self.service, self._url(), 'an "embeddings" list', data)
        return vectors


class OpenAIEmbedder(_RemoteEmbedder):
    """An OpenAI-compatible ``POST {base}/embeddings`` with ``{"model", "input": [...]}``
    → ``{"data": [{"index", "embedding"}]}``, bearer-key auth.

    Base URL: ``base_url`` argument, else ``$ENGRAM_OPENAI_BASE_URL``, else
    ``$OPENAI_BASE_URL``, else ``https://api.openai.com/v1``. Key: ``api_key``,
    else ``$ENGRAM_OPENAI_API_KEY``, else ``$OPENAI_API_KEY``; optional, since
    local compatible servers (LM Studio, vLLM, llama.cpp) usually need none.
    """

    service = "OpenAI-compatible API"
    kind = "openai"
    default_batch = OPENAI_BATCH

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        **kwargs: Any,
    ) -> None:
        base = base_url or _env("ENGRAM_OPENAI_BASE_URL", "OPENAI_BASE_URL") or DEFAULT_OPENAI_URL
        super().__init__(model, base, **kwargs)
        self._api_key = api_key or _env("ENGRAM_OPENAI_API_KEY", "OPENAI_API_KEY")

    def _url(self) -> str:
        return f"{self.base_url}/embeddings"

    def _headers(self) -> dict[str, str]:
        headers = super()._headers()
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _hint(self) -> str:
        return (
            "check ENGRAM_OPENAI_BASE_URL / OPENAI_BASE_URL and your network, "
            "or use ENGRAM_EMBEDDER=bundled"
        )

    def _http_hint(self, status: int) -> str:
        if status in (401, 403):
            if not self._api_key:
                return "no API key was sent: set ENGRAM_OPENAI_API_KEY or OPENAI_API_KEY"
            return "the API key was refused: check ENGRAM_OPENAI_API_KEY / OPENAI_API_KEY"
        if status == 404:
            return f"check the model name {self.model!r} and that the base URL ends in /v1"
        if status == 429:
            return "rate-limited or out of quota: retry later or check your plan"
        return ""

    def _request(self, texts: list[str]) -> list[Any]:
        data = self._post({"model": self.model, "input": texts})
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list) or not all(
            isinstance(i, dict) and "embedding" in i for i in items
        ):
            raise _bad_shape(self.service, self._url(), 'a "data" list of {"embedding": ...}', data)
        # The API documents ``index``; order by it when every item has one.
        if all(isinstance(i.get("index"), int) for i in items):
            indices = sorted(i["index"] for i in items)
            if indices != list(range(len(items))):
                raise _bad_shape(self.service, self._url(), "indices 0..n-1", data)
            items = sorted(items, key=lambda i: i["index"])
        vectors = [i["embedding"] for i in items]
        if any(isinstance(v, str) for v in vectors):
            raise EmbedderError(
                f"{self.service} at {self._url()} returned base64 embeddings; "
                "Engram asks for floats: is this server OpenAI-compatible?"
            )
        return vectors
