"""The MCP deletion tools, registered only with ``--allow-deletion`` (docs/spec/deletion.md): plan,
apply (by digest, a plan made by any server of the same caller) and verify.

A plan is kept in the graph (:mod:`graphmem.deletion.stored`: a planned ``DeletionRequest``
with its digest, owner and expiry), so a client that starts one server per call, or a
restarted server, applies it. Its owner is the server's caller (principal and fixed scope):
another caller's plan is unknown to this one. The graph does not keep a plan's redaction
terms; such a plan is applied with its terms (or the plan as returned) given again.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from graphmem.deletion.models import DeletionPlan, DeletionReport
from graphmem.errors import DeletionError
from graphmem.integrations.mcp.state import Ctx, server_state
from graphmem.integrations.mcp.tools import tool_errors

from .schemas import (
    PlanDeletionOut,
)

if TYPE_CHECKING:
    from .config import ServerConfig

__all__ = ["apply_deletion", "plan_deletion", "plan_owner", "verify_deletion"]


# -- deletion (registered only with --allow-deletion) ------------------------------------



def plan_owner(config: ServerConfig) -> str:
    """Who a stored plan belongs to: the server's principal (every field) and fixed scope,
    as canonical JSON. Servers started with the same options share their plans."""
    principal = {key: sorted(value) if isinstance(value, list) else value
                 for key, value in config.principal.model_dump(mode="json").items()}
    return json.dumps({"principal": principal, "scope": config.scope}, sort_keys=True)


async def plan_deletion(
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
    """Plan a lineage-aware deletion (deletes nothing); review it, then apply_deletion(digest).

    The plan is kept in the database until it expires (``plan_ttl_s``), for this server's
    caller only; its redaction terms are not kept (give them again to apply).

    Raises:
        ToolError: both or neither of roots/subject, roots out of reach, a subject
            contradicting the server's scope, a plan reaching beyond the server's reach.
    """
    state = server_state(ctx)
    with tool_errors():
        plan = await (await state.memory()).plan_deletion(
            roots, subject, redact_terms or (), requested_by=state.config.agent,
            reason=reason)
        from graphmem.deletion.stored import store_plan

        await state.on_store(store_plan, plan, owner=plan_owner(state.config),
                             ttl_s=state.config.plan_ttl_s)
        return PlanDeletionOut(digest=plan.digest, request_id=plan.request_id,
                               counts=plan.counts(), matches_nothing=plan.matches_nothing,
                               plan=json.loads(plan.to_json(indent=None)))


async def apply_deletion(
    ctx: Ctx,
    digest: Annotated[str, Field(description="The digest plan_deletion returned.")],
    plan: Annotated[dict[str, Any] | None, Field(
        description="Optionally the plan itself as returned, checked to be unedited.")
    ] = None,
    redact_terms: Annotated[list[str] | None, Field(
        description="The plan's redaction terms, when it names any and `plan` is not "
                    "given (they are not kept in the database).")] = None,
) -> DeletionReport:
    """Apply a stored plan of this caller, by digest; refuses a stale, edited or expired one.

    Applying an applied plan again changes nothing and returns its report.

    Raises:
        ToolError: an unknown digest (or another caller's plan), an edited plan, an expired
            one, missing redaction terms, or a stale one (the graph changed since planning:
            plan again).
    """
    from graphmem.deletion.stored import load_plan

    state = server_state(ctx)
    with tool_errors():
        given = None
        if plan is not None:
            limits = (await state.store()).limits
            limits.check_json_value("plan", plan)  # json.dumps recurses
            given = DeletionPlan.from_json(json.dumps(plan), limits)  # checks its digest
            if given.digest != digest:
                raise DeletionError("the plan given is not the plan with this digest: it "
                                    "was edited after planning; plan again")
        terms = tuple(redact_terms or ())
        held = await state.on_store(load_plan, digest, owner=plan_owner(state.config),
                                    terms=terms)
        if given is not None and given != held:
            raise DeletionError("the plan given is not the plan with this digest: it was "
                                "edited after planning; plan again")
        return await (await state.memory()).apply_deletion(held, redact_terms=terms or None)


async def verify_deletion(
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
        return await (await state.memory()).verify_deletion(request_id,
                                                            redact_terms=redact_terms or ())
