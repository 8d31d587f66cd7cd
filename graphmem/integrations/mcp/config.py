"""Who the MCP server's caller is, fixed at start-up.

The principal (tenants, clearance), the default scope and the agent name come from the ``graphmem
mcp`` options or their environment variables, never from a tool argument the model can set. The
default scope is the principal's confinement (``Principal.scope``): the core then keeps every call
within it (docs/spec/eligibility.md). Tool calls may *add* scope keys; they may not change a key the
server fixed, nor name a tenant outside the principal's. The authority a write may claim is capped
by ``max_authority`` (``--max-authority``; default ``human_instruction``). No ``mcp`` import here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import pydantic

from graphmem.errors import AuthorizationError, ValidationError
from graphmem.fields import check_scope, parse_pairs
from graphmem.models import Authority, Principal, Sensitivity

__all__ = ["DEFAULT_AGENT", "DEFAULT_DB_TIMEOUT_S", "DEFAULT_PLAN_TTL_S", "ServerConfig",
           "parse_pairs"]

DEFAULT_AGENT = "mcp-agent"
DEFAULT_DB_TIMEOUT_S = 0.75
"""How long a tool call waits for an unreachable Neo4j before its error, in seconds."""
DEFAULT_PLAN_TTL_S = 3600.0
"""How long a stored deletion plan may be applied after planning, in seconds."""



@dataclass(frozen=True)
class ServerConfig:
    """The MCP server's fixed identity and options.

    Attributes:
        principal: the tenants this server may read and write, its clearance, and its
            confinement (``principal.scope``: the default scope).
        scope: the default scope every call starts from (holds ``tenant`` unless the
            principal has several tenants, in which case each call must name one).
        allow_deletion: whether the deletion tools exist.
        agent: the name recorded as ``by`` / ``requested_by`` on writes and deletions.
        max_authority: the highest authority a write may claim (docs/spec/write-path.md).
        db_timeout_s: the database budget of one call, in seconds (connection, pool wait
            and retries each; the client's defaults are unchanged for other users).
        plan_ttl_s: how long a deletion plan stays appliable, in seconds.
    """

    principal: Principal
    scope: dict[str, str] = field(default_factory=dict)
    allow_deletion: bool = False
    agent: str = DEFAULT_AGENT
    max_authority: Authority = Authority.HUMAN_INSTRUCTION
    db_timeout_s: float = DEFAULT_DB_TIMEOUT_S
    plan_ttl_s: float = DEFAULT_PLAN_TTL_S

    @classmethod
    def build(
        cls,
        *,
        tenants: Iterable[str] = (),
        clearance: str | Sensitivity = Sensitivity.NORMAL,
        scope: Mapping[str, str] | None = None,
        allow_deletion: bool = False,
        agent: str = DEFAULT_AGENT,
        max_authority: str | Authority = Authority.HUMAN_INSTRUCTION,
        db_timeout_s: float = DEFAULT_DB_TIMEOUT_S,
        plan_ttl_s: float = DEFAULT_PLAN_TTL_S,
    ) -> ServerConfig:
        """A checked configuration.

        Args:
            tenants: tenant names; when empty, the default scope's ``tenant``.
            clearance: ``normal``, ``confidential`` or ``restricted``.
            scope: the default scope; its ``tenant`` (added when there is exactly one
                tenant) must be one of ``tenants``.
            allow_deletion: register the deletion tools. agent: who writes, for the log.
            max_authority: the highest authority a write may claim.
            db_timeout_s: a call's database budget, seconds (> 0).
            plan_ttl_s: how long a deletion plan may be applied, seconds (> 0).

        Raises:
            ValidationError: no tenant at all, an unknown clearance or authority, an empty
                agent name, a budget or lifetime that is not a positive number of seconds.
            AuthorizationError: the default scope names a tenant outside ``tenants``.
        """
        default = check_scope(scope or {}, what="the default scope", tenant=False)
        names = [t.strip() for t in tenants if t.strip()]
        if not names and "tenant" in default:
            names = [default["tenant"]]
        if not names:
            raise ValidationError(
                "the MCP server needs a tenant: give --tenant (or GRAPHMEM_MCP_TENANTS) or "
                "--scope tenant=NAME")
        try:
            principal = Principal(tenants=frozenset(names), clearance=Sensitivity(clearance))
        except (ValueError, pydantic.ValidationError):
            raise ValidationError(
                f"clearance must be one of {', '.join(s.value for s in Sensitivity)}, "
                f"not {clearance!r}") from None
        if "tenant" not in default and len(principal.tenants) == 1:
            default["tenant"] = next(iter(principal.tenants))
        if "tenant" in default and default["tenant"] not in principal.tenants:
            raise AuthorizationError(
                f"the default scope's tenant {default['tenant']!r} is not one of the "
                f"server's tenants ({', '.join(sorted(principal.tenants))})")
        if not agent.strip():
            raise ValidationError("the agent name must be non-empty")
        for name, seconds in (("db_timeout_s", db_timeout_s), ("plan_ttl_s", plan_ttl_s)):
            if not seconds > 0 or seconds == float("inf"):
                raise ValidationError(f"{name} must be a positive number of seconds")
        try:
            ceiling = Authority(max_authority)
        except ValueError:
            raise ValidationError(
                f"--max-authority must be one of {', '.join(a.value for a in Authority)}, "
                f"not {max_authority!r}") from None
        scope = dict(sorted(default.items()))
        return cls(principal=principal.model_copy(update={"scope": scope}), scope=scope,
                   allow_deletion=allow_deletion, agent=agent.strip(),
                   max_authority=ceiling, db_timeout_s=db_timeout_s, plan_ttl_s=plan_ttl_s)

    def check_tenant(self, tenant: str) -> None:
        """Raise AuthorizationError unless ``tenant`` is one of the principal's."""
        if tenant not in self.principal.tenants:
            raise AuthorizationError(
                f"tenant {tenant!r} is outside this server's principal "
                f"(tenants: {', '.join(sorted(self.principal.tenants))}); nothing was done")

    def resolve_scope(self, additions: Mapping[str, str] | None = None) -> dict[str, str]:
        """The default scope plus a call's additions.

        Raises:
            AuthorizationError: the additions change a key the server fixed, or name a
                tenant outside the principal's.
            ValidationError: additions that break the scope rule
                (:func:`graphmem.fields.check_scope`), or no tenant in the result.
        """
        scope = dict(self.scope)
        for key, value in check_scope(additions or {}, what="scope", tenant=False).items():
            if key == "tenant":
                self.check_tenant(value)
            if key in scope and scope[key] != value:
                raise AuthorizationError(
                    f"scope key {key!r} is fixed to {scope[key]!r} by the server's "
                    "configuration; a call may add keys, not change them")
            scope[key] = value
        if "tenant" not in scope:
            raise ValidationError(
                "this server has several tenants: name one in the call's scope "
                "(scope={'tenant': ...})")
        return dict(sorted(scope.items()))
