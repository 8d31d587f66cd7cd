"""The HTTP transport's bearer token (docs/integrations/mcp.md#http): whoever reaches the
port of ``graphmem mcp --http`` would otherwise act as the server's principal (any user of a
shared machine on loopback; anyone on the network on another address), so every request
must carry ``Authorization: Bearer TOKEN``. The token is ``GRAPHMEM_MCP_TOKEN`` when set (a
client's configuration can then hold it), else one made at start and printed on stderr.

The check is the official SDK's (``TokenVerifier``, ``RequireAuthMiddleware``): a request
without the token, or with another, is answered 401 before any tool or resource runs.
"""

from __future__ import annotations

import hmac
import re
import secrets

from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from pydantic import AnyHttpUrl

from graphmem.errors import ValidationError

__all__ = ["MIN_TOKEN_CHARS", "TOKEN_ENV", "BearerToken", "auth_settings", "http_token"]

TOKEN_ENV = "GRAPHMEM_MCP_TOKEN"
"""The environment variable a chosen token is read from."""
MIN_TOKEN_CHARS = 24
"""The shortest token taken (a made one has 43 characters)."""
_TOKEN = re.compile(r"[!-~]+")  # visible ASCII: what an Authorization header carries


def http_token(given: str | None) -> str:
    """The token the HTTP transport asks for: ``given`` (``GRAPHMEM_MCP_TOKEN``) checked, or
    a fresh random one when None or empty.

    Raises:
        ValidationError: a token shorter than :data:`MIN_TOKEN_CHARS` or holding anything but
            visible ASCII (a space, a non-ASCII letter).
    """
    if not given:
        return secrets.token_urlsafe(32)
    if len(given) < MIN_TOKEN_CHARS or not _TOKEN.fullmatch(given):
        raise ValidationError(f"{TOKEN_ENV} must be at least {MIN_TOKEN_CHARS} visible ASCII "
                              "characters (no spaces), e.g. the output of "
                              "`python -c 'import secrets; print(secrets.token_urlsafe(32))'`")
    return given


class BearerToken:
    """The SDK's ``TokenVerifier`` for one static token (compared in constant time).

    Args:
        token: the token every request must carry (:func:`http_token`).
    """

    def __init__(self, token: str) -> None:
        self._token = token.encode("utf-8")

    async def verify_token(self, token: str) -> AccessToken | None:
        """The access of a request carrying ``token``: the client's when it is the server's
        token, else None (the SDK then answers 401)."""
        if hmac.compare_digest(token.encode("utf-8", "replace"), self._token):
            return AccessToken(token=token, client_id="graphmem-mcp-client", scopes=[])
        return None


def auth_settings() -> AuthSettings:
    """The SDK's auth settings for a static token: no scope required and no authorization
    server to discover (the token is given to clients, not issued by OAuth)."""
    return AuthSettings(issuer_url=AnyHttpUrl("http://127.0.0.1"), resource_server_url=None,
                        required_scopes=[])
