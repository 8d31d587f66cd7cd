"""The inspector's Starlette application and its server (docs/ui.md).

:func:`create_app` wires the pages to a client bound to the configured principal;
:func:`serve` runs it with uvicorn on 127.0.0.1 only. Requests whose ``Host`` is not the
loopback's are refused (a page of another site reached through DNS rebinding reads nothing),
a request another site's page made (Fetch Metadata) is answered only as a link followed to a
page that only reads, every page is sent with a Content-Security-Policy allowing this origin
only, and errors are pages (:func:`graphmem.ui.web.error_page`).
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphmem.client import Memory
from graphmem.errors import (
    AuthorizationError,
    GraphmemError,
    RecordNotFoundError,
    ValidationError,
)
from graphmem.ui import deletion, lineage, records, reports, retrieval
from graphmem.ui.access import AccessKey
from graphmem.ui.config import UiConfig
from graphmem.ui.web import UiState, error_page, foreign

__all__ = ["HOST", "LOOPBACK_NAMES", "create_app", "serve"]

HOST = "127.0.0.1"
"""The only address the inspector listens on."""
LOOPBACK_NAMES = ("127.0.0.1", "localhost")
STATIC = Path(__file__).parent / "static"
CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
       "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; form-action 'self'")


class _Headers:
    """Adds the security headers to every response; every page and answer but the static
    files is also ``no-store`` (they show records: no browser cache or back-forward copy
    keeps them after the tab is closed)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"content-security-policy", CSP.encode()),
                            (b"x-content-type-options", b"nosniff"),
                            (b"referrer-policy", b"no-referrer"),
                            (b"cross-origin-resource-policy", b"same-origin"),
                            (b"cross-origin-opener-policy", b"same-origin")]
                if not scope.get("path", "").startswith("/static/"):
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, sending)


class _OwnSite:
    """Answers a request of another site's page only when it is a top-level ``GET``
    navigation (a link followed, which shows a page; the pages that write on ``GET`` refuse
    it themselves, :func:`graphmem.ui.web.own_site_only`): no image, script, frame, fetch or
    form post of another page reaches the inspector, which has no login to tell them apart."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            request = Request(scope)
            navigation = (request.method in ("GET", "HEAD")
                          and request.headers.get("sec-fetch-mode") == "navigate"
                          and request.headers.get("sec-fetch-dest", "document") == "document")
            if foreign(request) and not navigation:
                refused = AuthorizationError("a page of another site may not ask the "
                                             "inspector for this: open the inspector itself")
                await error_page(request, refused)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _not_found(request: Request, exc: Exception) -> Response:
    return error_page(request, RecordNotFoundError("no page at this address"))


def _http_error(request: Request, exc: Exception) -> Response:
    status = getattr(exc, "status_code", 500)
    response = error_page(request, GraphmemError(str(getattr(exc, "detail", "error"))))
    response.status_code = status
    return response


def create_app(memory: Memory, config: UiConfig) -> Starlette:
    """The inspector for ``config.principal`` over ``memory``'s store.

    Args:
        memory: a connected client (the operator's or a bound one); every page uses
            ``memory.confined(config.principal)``, never ``memory`` itself.
        config: the principal and options (:class:`UiConfig`).

    Returns:
        A Starlette app (ASGI); run it with :func:`serve` or any ASGI server on loopback.

    Raises:
        AuthorizationError: ``memory`` is bound to a principal narrower than
            ``config.principal``.
    """
    state = UiState(memory=memory.confined(config.principal), config=config)
    routes = [
        Route("/", records.home_page),
        Route("/records", records.records_page),
        Route("/records/{record_id:path}/retract", records.retract_action, methods=["POST"]),
        Route("/records/{record_id:path}", records.record_page),
        # not /lineage/ID/export: that was also the page of a record named ID/export
        Route("/export/lineage/{record_id:path}", lineage.lineage_export),
        Route("/lineage/{record_id:path}", lineage.lineage_page),
        Route("/api/lineage/{record_id:path}", lineage.lineage_api),
        Route("/retrieval", retrieval.retrieval_page),
        Route("/deletion", deletion.deletion_form),
        Route("/deletion/plan", deletion.plan_page),
        Route("/deletion/apply", deletion.apply_action, methods=["POST"]),
        Route("/deletion/requests/{request_id}/certificate", deletion.certificate_page),
        Route("/deletion/requests/{request_id}", deletion.report_page),
        Route("/reports", reports.reports_page),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=list(LOOPBACK_NAMES)),
                    Middleware(_Headers),
                    *([Middleware(AccessKey, key=config.access_key)] if config.access_key
                      else []),
                    Middleware(_OwnSite)],
        exception_handlers={GraphmemError: error_page, 404: _not_found,
                            405: _http_error, Exception: error_page})
    app.state.ui = state
    return app


def serve(app: Starlette, port: int = 8765) -> None:
    """Run ``app`` on http://127.0.0.1:``port`` until interrupted.

    Raises:
        ValidationError: the port is out of range or cannot be bound.
    """
    import uvicorn

    if not 0 <= port <= 65535:
        raise ValidationError("the port must be from 0 to 65535")
    config = uvicorn.Config(app, host=HOST, port=port, log_level="warning",
                            server_header=False, proxy_headers=False)
    try:
        uvicorn.Server(config).run()
    except OSError as exc:
        raise ValidationError(f"cannot listen on {HOST}:{port}: "
                              f"{exc.strerror or exc}") from None
