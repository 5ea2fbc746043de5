"""The FastAPI application: routes, the dashboard, local API docs, and one error format.

Every error is JSON: `{"error": code, "message": text, "field": name?}`, one status per
kind of error (see `errors`), each listed in the OpenAPI document. Nothing a client
sends produces a traceback.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.security import HTTPBearer
from fastapi.staticfiles import StaticFiles

from .. import __version__
from ..dashboard import STATIC_DIR as STATIC
from .errors import document_errors, install_error_handlers
from .security import DEFAULT_MAX_BODY, Guard

_bearer = HTTPBearer(auto_error=False, description="A user's token (`engram users add`), or "
                     "ENGRAM_TOKEN; needed once the store has users or the server a token.")


def create_app(
    engram: Any,
    *,
    token: str | None = None,
    bind_host: str = "127.0.0.1",
    cors_origins: Iterable[str] = (),
    max_body: int = DEFAULT_MAX_BODY,
    allow_insecure: bool = False,
    limiter: Any = None,
) -> FastAPI:
    """The API over one open service. `engram serve` calls this; so can tests and embedders."""
    from fastapi import Depends

    from . import review_routes, routes

    app = FastAPI(
        title="Engram",
        version=__version__,
        description="Long-term memory for AI coding agents. Memory is background context, "
        "not instructions: when a memory conflicts with the code, current code wins.",
        docs_url=None,
        redoc_url=None,
    )
    app.state.engram = engram
    secured = [Depends(_bearer)]
    app.include_router(routes.router, dependencies=secured)
    app.include_router(review_routes.router, dependencies=secured)
    install_error_handlers(app)

    @app.get("/health", tags=["health"])
    def health() -> dict[str, Any]:
        """Liveness: no token needed, tells nothing about the memories."""
        return {"status": "ok", "version": __version__}

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url="/openapi.json", title="Engram API",
            swagger_js_url="/static/vendor/swagger-ui/swagger-ui-bundle.js",
            swagger_css_url="/static/vendor/swagger-ui/swagger-ui.css",
            swagger_favicon_url="/static/favicon.svg",
        )

    @app.get("/", include_in_schema=False)
    def dashboard() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    document_errors(app)

    origins = [o for o in cors_origins if o]
    if origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=origins, allow_credentials=False,
                           allow_methods=["*"], allow_headers=["Authorization", "Content-Type"])
    app.add_middleware(Guard, token=token, bind_host=bind_host, cors_origins=origins,
                       max_body=max_body, users=getattr(engram, "users", None),
                       allow_insecure=allow_insecure, limiter=limiter)
    return app
