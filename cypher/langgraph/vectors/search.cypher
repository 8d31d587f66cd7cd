// LangGraph store: one page of a semantic search, exact. The same items as langgraph/search
// (every namespace under the prefix; eligible and ACTIVE for the caller: parts/record_active,
// with the record's own namespace scope as the query scope,
// docs/spec/eligibility.md#eligible-and-active; passing every value condition:
// parts/langgraph_conditions), each scored by the
// best cosine similarity of its own vectors (its LgVector nodes of $vector's length; Neo4j's
// cosine, (1 + cos) / 2, 0.5 for a zero vector or a zero query) to $vector; ordered by that
// score, highest first, items without a vector last, ties in langgraph/search's order (tenants
// in $search_tenants order, namespaces by their first write, keys by their first put); then
// the page [$offset, $offset + $limit). At most $cap + 1 items are read: with more than $cap
// eligible items, `over` comes back true and the page empty (the caller then asks
// langgraph/vectors/nearest). One row: {over, page: [{metadata_json, created_at, lg_chain_seq,
// lg_created_at, id, lg_ttl, sim}]}.
// $search_tenants, $pairs, $tenants, $clearance, $now, $conditions: as langgraph/search;
// $vector: the query's embedding; $zero: whether it is all zeros; $cap: the most items scored.
UNWIND range(0, size($search_tenants) - 1) AS t
WITH t, $search_tenants[t] AS tenant
MATCH (s:Scope {tenant: tenant})
USING INDEX SEEK s:Scope(tenant)
WHERE {{langgraph_namespace}}
CALL (s) {
  MATCH (r:Record)
  USING INDEX r:Record(lg_order)
  WHERE r.lg_order STARTS WITH s.langgraph_key
  {{langgraph_item}}
  RETURN r
}
WITH t, s, r LIMIT $cap + 1
WITH collect({t: t, seq: s.langgraph_seq, r: r}) AS found
WITH found, size(found) > $cap AS over
CALL (found, over) {
  UNWIND CASE WHEN over THEN [] ELSE found END AS c
  WITH c.t AS t, c.seq AS seq, c.r AS r
  CALL (r) {
    OPTIONAL MATCH (v:LgVector)-[:EMBEDS]->(r)
    WHERE size(v.vector) = size($vector)
    RETURN max(CASE WHEN v.zero OR $zero THEN 0.5
                    ELSE vector.similarity.cosine(v.vector, $vector) END) AS sim
  }
  WITH t, seq, r, sim ORDER BY coalesce(sim, -1.0) DESC, t, seq, r.lg_order
  RETURN collect({metadata_json: r.metadata_json, created_at: r.created_at,
                  lg_chain_seq: r.lg_chain_seq, lg_created_at: r.lg_created_at, id: r.id,
                  lg_ttl: r.lg_ttl, sim: sim}) AS ranked
}
RETURN over, ranked[$offset..$offset + $limit] AS page
