"""The MCP deletion tools, registered only with ``--allow-deletion`` (SPEC section 7): plan,
apply (only plans this server made, by digest) and verify.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from pydantic import Field

from graphmem import DeletionError
from graphmem.deletion.models import DeletionPlan, DeletionReport
from graphmem.integrations.mcp.tools import Ctx, server_state, tool_errors

from .schemas import (
    PlanDeletionOut,
)

__all__ = ["apply_deletion", "plan_deletion", "verify_deletion"]


# -- deletion (registered only with --allow-deletion) ------------------------------------


def plan_deletion(
    ctx: Ctx,
    reason: Annotated[str, Field(min_length=1, description="Why the deletion is requested.")],
    roots: Annotated[list[str] | None, Field(
        description="Memory ids to delete (with what was derived from them).")] = None,
    subject: Annotated[dict[str, str] | None, Field(
        description="Delete everything in this scope, e.g. {'user': 'u-17'}: the "
                    "server's --scope is added; {} is the server's own scope.")] = None,
    redact_terms: Annotated[list[str] | None, Field(
        description="Terms to redact wherever they survive (names, emails).")] = None,
) -> PlanDeletionOut:
    """Plan a lineage-aware deletion (reads only); review it, then apply_deletion(digest).

    Raises:
        ToolError: both or neither of roots/subject, roots out of reach, a subject
            contradicting the server's scope, a plan reaching beyond the server's reach.
    """
    state = server_state(ctx)
    with tool_errors():
        plan = state.memory.plan_deletion(roots, subject, redact_terms or (),
                                          requested_by=state.config.agent, reason=reason)
        with state.lock:
            state.plans[plan.digest] = plan
        return PlanDeletionOut(digest=plan.digest, request_id=plan.request_id,
                               counts=plan.counts(), matches_nothing=plan.matches_nothing,
                               plan=plan)


def apply_deletion(
    ctx: Ctx,
    digest: Annotated[str, Field(description="The digest plan_deletion returned.")],
    plan: Annotated[dict[str, Any] | None, Field(
        description="Optionally the plan itself as returned, checked to be unedited.")
    ] = None,
) -> DeletionReport:
    """Apply a plan this server made, by digest; refuses a stale or edited plan.

    Raises:
        ToolError: an unknown digest, an edited plan, or a stale one (the graph changed
            since planning: plan again).
    """
    state = server_state(ctx)
    with tool_errors():
        with state.lock:
            held = state.plans.get(digest)
        if plan is not None:
            given = DeletionPlan.from_json(json.dumps(plan))  # checks its own digest
            if given.digest != digest or (held is not None and given != held):
                raise DeletionError("the plan given is not the plan with this digest: it was "
                                    "edited after planning; plan again")
        if held is None:
            raise DeletionError("no plan with this digest was made by this server; call "
                                "plan_deletion first")
        return state.memory.apply_deletion(held)


def verify_deletion(
    ctx: Ctx,
    request_id: Annotated[str, Field(description="The plan's request_id.")],
    redact_terms: Annotated[list[str] | None, Field(
        description="The request's redaction terms, to prove they are gone.")] = None,
) -> DeletionReport:
    """Re-verify an applied deletion request and return its report.

    Raises:
        ToolError: unknown request, or one beyond the server's reach.
    """
    state = server_state(ctx)
    with tool_errors():
        return state.memory.verify_deletion(request_id, redact_terms=redact_terms or ())
