"""The retrieval page of the inspector: one :meth:`graphmem.Memory.retrieve` with a goal, a
time and a budget, shown stage by stage (docs/ui.md; docs/spec/read-path.md).

The stages are the trace's: candidates (eligible in scope), ranked (score order), conflict
partners brought in, records left out over budget, thread context, and the rendered text.
As for ``graphmem retrieve``, the request is an explicit look-up (``needs_prior_context``), and
it is logged for attribution as every retrieval is.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from graphmem.client import store_of
from graphmem.fields import parse_pairs
from graphmem.read.rankers import DEFAULT_RANKER
from graphmem.ui.web import form_int, form_time, own_site_only, page, state_of

__all__ = ["MAX_BUDGET", "retrieval_page"]

MAX_BUDGET = 200_000
"""Largest budget the form accepts, in characters."""
RANKERS = ("bm25", "embedding", "hybrid")
SHOWN = 100
"""Most ids the candidates and ranked stages list (their counts are whole)."""


def retrieval_page(request: Request) -> Response:
    """``/retrieval?goal=&at=&budget=&k=&ranker=&tenant=&scope=``: the form, and with a goal
    the retrieval's stages."""
    state = state_of(request)
    query = request.query_params
    goal = query.get("goal", "").strip()
    budget = form_int(query.get("budget"), "budget", 4000, 1, MAX_BUDGET)
    k = form_int(query.get("k"), "k", 10, 1, 200)
    ranker = query.get("ranker") or DEFAULT_RANKER
    tenant, scope_text = query.get("tenant", ""), query.get("scope", "")
    context: dict[str, Any] = {
        "goal": goal, "at_text": query.get("at", ""), "budget": budget, "k": k,
        "ranker": ranker, "rankers": RANKERS, "tenant": tenant, "scope_text": scope_text,
        "tenants": sorted(state.config.principal.tenants), "result": None, "shown": SHOWN}
    if goal:
        own_site_only(request, "run a retrieval (each is logged)")
        scope = {**state.config.query_scope(tenant or None),
                 **parse_pairs(scope_text.split(), "scope")}
        at = form_time(query.get("at"), "at") or store_of(state.memory).clock()
        result = state.memory.retrieve({"memory_scope": scope, "goal": goal,
                                        "needs_prior_context": True}, now=at,
                                       budget_chars=budget, ranker=ranker, k=k)
        context.update(result=result, at=at, scope=scope, chosen=set(result.ids),
                       ranked=list(result.trace.ranked))
    return page(request, "retrieval.html", title="Retrieval", **context)
