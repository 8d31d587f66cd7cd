"""Who a framework call is for, as graphmem sees it: one mapping shared by the agent-framework
adapters (ADK, Pydantic AI, Strands, Agent Framework).

A framework names its caller with an app, a user, a session and an agent. graphmem needs a
tenant, a scope and a confined principal (docs/spec/eligibility.md):

- **tenant**: given to the adapter (the deployment's tenant); ADK may take the app's name;
- **scope** (the confinement): ``{"tenant": ..., "user": ...}`` plus ``"app"`` when the
  framework names one, so a user's memories are shared by the app's sessions and agents and
  never reach another user; the keys are the ones the MCP server's ``--scope user=...`` uses,
  so the same user's memories are one set whichever way they were written;
- **principal**: the tenant, the adapter's clearance and that scope, so the core refuses
  anything outside it exactly as for any confined caller;
- **session and agent**: not confinement (a memory outlives its session), but kept on every
  record the adapter writes (``provenance``: ``source``, ``agent``, ``session``) and in the
  ``by`` of its write decisions.

No framework import here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import pydantic

from graphmem.errors import ValidationError
from graphmem.fields import check_scope, reject_lone_surrogates
from graphmem.models import Principal, Sensitivity

__all__ = ["AgentIdentity", "stable_id", "user_of"]

SEP = "\x1f"
"""What :func:`stable_id` joins the parts of an id with (ASCII unit separator)."""


@dataclass(frozen=True)
class AgentIdentity:
    """A framework caller mapped onto graphmem (module docstring).

    Attributes:
        tenant: the graphmem tenant (non-empty).
        user: the end user the memories belong to (non-empty).
        app: the application, when the framework names one (an extra scope key).
        agent: the agent's name, recorded as who wrote (default ``"agent"``).
        session: the framework's session or conversation id, recorded on writes.
        framework: the adapter's name, recorded as the records' ``source``.

    Raises:
        ValidationError: an empty or non-string tenant, user, app, agent or session.
    """

    tenant: str
    user: str
    app: str | None = None
    agent: str = "agent"
    session: str | None = None
    framework: str = "graphmem"

    def __post_init__(self) -> None:
        for name in ("tenant", "user", "agent", "framework"):
            _check(name, getattr(self, name))
        for name in ("app", "session"):
            value = getattr(self, name)
            if value is not None:
                _check(name, value)

    @property
    def scope(self) -> dict[str, str]:
        """The confinement and the scope every record is written in: tenant, user, app."""
        pairs = {"tenant": self.tenant, "user": self.user}
        if self.app is not None:
            pairs["app"] = self.app
        return dict(sorted(pairs.items()))

    def principal(self, clearance: Sensitivity = Sensitivity.NORMAL) -> Principal:
        """The confined principal of this caller: its tenant, ``clearance``, :attr:`scope`.

        Raises:
            ValidationError: a scope graphmem refuses (too long, lone surrogates).
        """
        try:
            reject_lone_surrogates("scope", check_scope(self.scope))
            return Principal(tenants=frozenset({self.tenant}), clearance=Sensitivity(clearance),
                             scope=self.scope)
        except (pydantic.ValidationError, ValueError) as exc:
            raise ValidationError(f"cannot confine this caller: {exc}") from None

    @property
    def by(self) -> str:
        """Who writes, as write decisions and deletion requests record it."""
        session = f" session {self.session}" if self.session else ""
        return f"{self.framework}:{self.agent}{session}"

    @property
    def provenance(self) -> dict[str, str]:
        """Where the adapter's records come from: the framework, the agent, the session."""
        out = {"source": self.framework, "agent": self.agent}
        if self.session is not None:
            out["session"] = self.session
        return out


def stable_id(prefix: str, *parts: str) -> str:
    """A record id that is the same each time the same framework item is written (so writing a
    session again stores nothing twice): ``prefix-`` and a SHA-256 of ``parts``, 32 hex digits.

    The parts are joined with U+001F, the ids graphmem always gave; when a part holds U+001F
    itself, the digest is of the parts as a JSON list instead (whose U+001F are escaped, so it
    equals no joined text), or user ``u`` writing key ``z<U+001F>k`` would take user
    ``u<U+001F>z``'s id for key ``k``.
    """
    text = (SEP.join(parts) if not any(SEP in part for part in parts)
            else json.dumps(list(parts), ensure_ascii=True))
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{prefix}-{digest[:32]}"


C = TypeVar("C")


def user_of(find: Callable[[C], object], context: C) -> str:
    """The user a framework's run or session names, by the application's ``find`` function
    (``lambda ctx: ctx.deps.user_id``).

    Raises:
        ValidationError: ``find`` failed, or gave no non-empty string.
    """
    try:
        user = find(context)
    except Exception as exc:
        raise ValidationError(f"the function naming the user failed: {type(exc).__name__}: "
                              f"{exc}") from None
    _check("user", user)
    assert isinstance(user, str)
    return user


def _check(name: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"the framework's {name} must be a non-empty string, got "
                              f"{value!r}")
