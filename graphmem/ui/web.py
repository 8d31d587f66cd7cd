"""What every page of the inspector shares: its state, templates, form readers and the error
page (docs/ui.md).

Every error a page meets is a :class:`~graphmem.errors.GraphmemError` shown as a page with a
status code (404 for an id out of reach, exactly as for one that does not exist; 403 for a
refused action; 400 for bad input); anything else is a plain 500 page, never a traceback.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse

from graphmem.client import Memory, store_of
from graphmem.db.ops.listing import ListingOps
from graphmem.deletion import DeletionPlan
from graphmem.errors import (
    AuthorizationError,
    DatabaseUnavailableError,
    GraphmemError,
    RecordNotFoundError,
    ValidationError,
)
from graphmem.ui.config import UiConfig

__all__ = ["FOREIGN_SITES", "UiState", "error_page", "foreign", "form_time", "own_site_only",
           "page", "state_of", "status_for"]

TEMPLATES = Path(__file__).parent / "templates"
MAX_PLANS = 64
"""Most deletion plans kept between their preview and their application."""
FOREIGN_SITES = ("cross-site", "same-site")
"""The ``Sec-Fetch-Site`` values of a request a page of another site made: for a browser,
another port of this machine is the same site but not this origin, so it is foreign too."""

log = logging.getLogger("graphmem.ui")


@dataclass
class UiState:
    """The inspector's state: the bound client, its options, the templates and the plans
    previewed and not yet applied (request id -> plan; oldest dropped past
    :data:`MAX_PLANS`), and the records list's reads (:attr:`lists`)."""

    memory: Memory
    config: UiConfig
    env: Environment = field(default_factory=lambda: Environment(
        loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True),
        trim_blocks=True, lstrip_blocks=True))
    plans: dict[str, DeletionPlan] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    lists: ListingOps = field(init=False)
    """The records list's reads, with the keys and counts they keep."""

    def __post_init__(self) -> None:
        self.lists = ListingOps(store_of(self.memory))

    def keep_plan(self, plan: DeletionPlan) -> None:
        """Keep a previewed plan for its application (dropping the oldest past the cap)."""
        with self.lock:
            self.plans[plan.request_id] = plan
            while len(self.plans) > MAX_PLANS:
                self.plans.pop(next(iter(self.plans)))

    def take_plan(self, request_id: str) -> DeletionPlan:
        """The kept plan of ``request_id`` (removed). Raises RecordNotFoundError."""
        with self.lock:
            plan = self.plans.pop(request_id, None)
        if plan is None:
            raise RecordNotFoundError("no previewed deletion plan with this request id: "
                                      "plan it again")
        return plan


def state_of(request: Request) -> UiState:
    """The inspector's state of the app serving ``request``."""
    state: UiState = request.app.state.ui
    return state


async def confirmed_write(request: Request, action: str) -> tuple[UiState, FormData]:
    """The state and form of a write action's ``POST``, once the one rule for every write
    action holds: the inspector was started with ``--allow-writes``, the form carries this
    process's token, and its confirmation box is ticked (``action`` names what it confirms).

    Raises:
        AuthorizationError: started read-only, or a form from elsewhere.
        ValidationError: the confirmation box is not ticked.
    """
    state = state_of(request)
    form = await request.form()
    if not state.config.allow_writes:
        raise AuthorizationError("the inspector was started read-only (no --allow-writes)")
    if form.get("token") != state.config.token:
        raise AuthorizationError("this form did not come from the inspector")
    if form.get("confirm") != "yes":
        raise ValidationError(f"tick the confirmation box to {action}")
    return state, form


def foreign(request: Request) -> bool:
    """True if a browser says a page of another site (or another port of this machine) made
    ``request`` (its Fetch Metadata ``Sec-Fetch-Site``); False for the inspector's own pages,
    a typed URL or bookmark (``none``) and clients that send no Fetch Metadata."""
    return request.headers.get("sec-fetch-site", "").lower() in FOREIGN_SITES


def own_site_only(request: Request, action: str) -> None:
    """Refuse a ``GET`` that writes or keeps state (``action`` names it) when another site's
    page asked for it, even as a link followed: the inspector has no login, so any page the
    analyst opens could otherwise make it act.

    Raises:
        AuthorizationError: :func:`foreign` holds.
    """
    if foreign(request):
        raise AuthorizationError(f"a page of another site may not {action}: open the "
                                 "inspector and do it from there")


def page(request: Request, template: str, status_code: int = 200, **context: Any
         ) -> HTMLResponse:
    """``template`` rendered with ``context`` and what every page shows (the principal,
    whether writes are on, the form token)."""
    state = state_of(request)
    html = state.env.get_template(template).render(
        principal=state.config.principal, allow_writes=state.config.allow_writes,
        token=state.config.token, path=request.url.path, **context)
    return HTMLResponse(html, status_code=status_code)


def status_for(exc: GraphmemError) -> int:
    """The HTTP status of an error: 404 for an unknown or out-of-reach id (one answer for
    both), 403 for a refused action, 400 for bad input, 503 without a database, else 500."""
    if isinstance(exc, RecordNotFoundError):
        return 404
    if isinstance(exc, AuthorizationError):
        return 403
    if isinstance(exc, ValidationError):
        return 400
    if isinstance(exc, DatabaseUnavailableError):
        return 503
    return 500 if type(exc) is GraphmemError else 400


def error_page(request: Request, exc: Exception) -> HTMLResponse:
    """The error page of ``exc``: its type and message for a GraphmemError (nothing of the
    record it named), a bare 'internal error' for anything else (logged, never shown)."""
    if isinstance(exc, GraphmemError):
        status, name, message = status_for(exc), type(exc).__name__, str(exc)
    else:
        log.error("graphmem ui: unexpected error", exc_info=exc)
        status, name, message = 500, "InternalError", "the inspector met an unexpected error"
    return page(request, "error.html", status_code=status, title=name, name=name,
                message=message)


def form_time(value: str | None, what: str = "time") -> datetime | None:
    """An aware UTC time from a form field (``YYYY-MM-DDTHH:MM[:SS]`` as UTC, or ISO 8601
    with an offset); None when empty.

    Raises:
        ValidationError: not a time, or one whose UTC form is outside the years 1-9999.
    """
    if not value or not value.strip():
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValidationError(f"{what} must be a time like 2026-01-31T12:00 (UTC), "
                              f"got {value!r}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:59-05:00 is in year 10000 at UTC
        raise ValidationError(f"{what} is outside the range of UTC times (years 1-9999), "
                              f"got {value!r}") from None


def form_int(value: str | None, what: str, default: int, low: int, high: int) -> int:
    """An integer form field in ``low..high`` (``default`` when empty).

    Raises:
        ValidationError: not an integer, or out of range.
    """
    if value is None or not value.strip():
        return default
    try:
        number = int(value)
    except ValueError:
        raise ValidationError(f"{what} must be an integer, got {value!r}") from None
    if not low <= number <= high:
        raise ValidationError(f"{what} must be from {low} to {high}")
    return number
