"""The inspector's access key (docs/ui.md#errors-and-safety): on a machine shared by several
people, any of them can reach a port on 127.0.0.1, so ``graphmem ui`` makes a random key at
start and prints the address that holds it. A browser that opens that address once gets the
key as a cookie (``HttpOnly``, ``SameSite=Strict``) and is sent on to the same page without
it; any request without the key, or with another, is refused (401) before a page runs.

A program that serves :func:`graphmem.ui.app.create_app` itself and controls who reaches it
may leave the key out (``UiConfig.access_key`` None).
"""

from __future__ import annotations

import hashlib
import hmac
import urllib.parse

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from graphmem.errors import AuthorizationError

__all__ = ["KEY_PARAMETER", "AccessKey", "cookie_name"]

KEY_PARAMETER = "key"
"""The query parameter of the address ``graphmem ui`` prints that carries the key."""


def cookie_name(key: str) -> str:
    """The cookie that keeps ``key``: named by a digest of it, so that two inspectors on two
    ports of one machine (cookies are the host's, whatever the port) keep a cookie each."""
    return "graphmem-ui-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


class AccessKey:
    """ASGI middleware: serve a request only when it holds ``key`` (module docstring).

    Args:
        app: the inspector. key: the access key (non-empty).

    Raises:
        ValueError: an empty key (a programming error: it would let everyone in).
    """

    def __init__(self, app: ASGIApp, *, key: str) -> None:
        if not key:
            raise ValueError("an empty access key would let everyone in")
        self.app = app
        self.key = key
        self.cookie = cookie_name(key)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if self._holds(request.cookies.get(self.cookie)):
            await self.app(scope, receive, send)
            return
        if self._holds(request.query_params.get(KEY_PARAMETER)):
            rest = [(k, v) for k, v in request.query_params.multi_items()
                    if k != KEY_PARAMETER]
            # the path as the browser sent it: decoded, a % in a record id named another
            raw = scope.get("raw_path")
            path = (raw.decode("latin-1") if isinstance(raw, bytes)
                    else urllib.parse.quote(scope["path"]))
            path = "/" + path.lstrip("/")  # never //host: an address of another site
            target = path + (f"?{urllib.parse.urlencode(rest)}" if rest else "")
            response: Response = RedirectResponse(target, status_code=303)
            response.set_cookie(self.cookie, self.key, httponly=True, samesite="strict",
                                path="/")
            await response(scope, receive, send)
            return
        from graphmem.ui.web import error_page  # the pages' module needs jinja2: load late

        refused = error_page(request, AuthorizationError(
            "this inspector asks for its access key: open the address `graphmem ui` printed "
            "when it started (it ends in ?key=...)"))
        refused.status_code = 401
        await refused(scope, receive, send)

    def _holds(self, given: str | None) -> bool:
        return given is not None and hmac.compare_digest(given.encode("utf-8"),
                                                         self.key.encode("utf-8"))
