"""Who the inspector shows memory to, fixed at start-up (docs/ui.md).

The principal (tenants, clearance, confinement) comes from the ``graphmem ui`` options, never
from a page's URL or form: every page asks the client bound to it
(:meth:`graphmem.Memory.confined`), so the confinement rules of docs/spec/eligibility.md
decide what a page may show. Write actions exist only when ``allow_writes`` is set.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pydantic

from graphmem.errors import ValidationError
from graphmem.models import Principal, Sensitivity

__all__ = ["DEFAULT_AGENT", "UiConfig"]

DEFAULT_AGENT = "graphmem-ui"
"""The name the inspector's writes and deletion requests record as their author."""


@dataclass(frozen=True)
class UiConfig:
    """The inspector's fixed identity and options.

    Attributes:
        principal: the caller every page acts for (its ``scope`` is the confinement).
        allow_writes: whether the write actions (apply a deletion, retract) exist.
        agent: recorded as ``by`` / ``requested_by`` of the inspector's writes, with the
            principal (see :meth:`author`).
        report: a ``graphmem eval all`` report.json to chart, or None.
        token: a per-process secret every write form carries (a page of another site cannot
            post one).
        access_key: the key a browser must show once (:mod:`graphmem.ui.access`; ``graphmem
            ui`` makes one and prints the address holding it); None: every request from
            loopback is served (a program serving the app controls who reaches it).
    """

    principal: Principal
    allow_writes: bool = False
    agent: str = DEFAULT_AGENT
    report: Path | None = None
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    access_key: str | None = None

    @classmethod
    def build(cls, *, tenants: Iterable[str], clearance: str | Sensitivity = "normal",
              scope: Mapping[str, str] | None = None, allow_writes: bool = False,
              agent: str = DEFAULT_AGENT, report: Path | None = None,
              access_key: bool = False) -> UiConfig:
        """A checked configuration.

        Args:
            tenants: the tenants the principal may read (at least one).
            clearance: ``normal``, ``confidential`` or ``restricted``.
            scope: the confinement pairs, e.g. ``{"user": "u-17"}`` (default: none).
            allow_writes: offer the write actions. agent: the author name of writes.
            report: path of an evaluation report (JSON) for the reports page.
            access_key: make a fresh random ``access_key`` (as ``graphmem ui`` does).

        Raises:
            ValidationError: no tenant, an unknown clearance, a confinement naming a tenant
                outside ``tenants``, an empty agent name.
        """
        names = frozenset(t.strip() for t in tenants if t.strip())
        if not names:
            raise ValidationError("the inspector needs a tenant: give --tenant NAME")
        if not agent.strip():
            raise ValidationError("the agent name must be non-empty")
        try:
            principal = Principal(tenants=names, clearance=Sensitivity(clearance),
                                  scope=dict(scope or {}))
        except ValueError as exc:
            detail = (exc.errors()[0]["msg"] if isinstance(exc, pydantic.ValidationError)
                      else str(exc))
            raise ValidationError(f"invalid principal: {detail}") from None
        return cls(principal=principal, allow_writes=allow_writes, agent=agent.strip(),
                   report=report,
                   access_key=secrets.token_urlsafe(24) if access_key else None)

    def author(self) -> str:
        """``by`` of the inspector's writes: the agent and the principal it acts for."""
        pairs = ",".join(f"{k}={v}" for k, v in self.principal.scope.items())
        tenants = "+".join(sorted(self.principal.tenants))
        return f"{self.agent}[{tenants}{';' + pairs if pairs else ''}]"

    def query_scope(self, tenant: str | None = None) -> dict[str, str]:
        """The confinement plus a tenant: the principal's only one when it has one.

        Raises:
            ValidationError: the principal has several tenants and none was chosen.
        """
        scope = dict(self.principal.scope)
        if tenant:
            scope.setdefault("tenant", tenant)
        elif "tenant" not in scope:
            if len(self.principal.tenants) != 1:
                raise ValidationError("choose a tenant: this principal has several")
            scope["tenant"] = next(iter(self.principal.tenants))
        return scope
