// LangGraph store: one page of a semantic search over many items, through the vector index.
// The $k vectors nearest to $vector (index langgraph_vector: approximate, and blind to
// eligibility and filters), then, exactly, the items they embed that langgraph/search would
// return (under the prefix; eligible and ACTIVE for the caller: parts/record_active, with the
// record's own namespace scope as the query scope,
// docs/spec/eligibility.md#eligible-and-active; passing every value condition:
// parts/langgraph_conditions), each rescored exactly by
// the best cosine similarity of all its vectors of $vector's length (Neo4j's cosine,
// (1 + cos) / 2), ordered as langgraph/vectors/search orders, then the page [$offset,
// $offset + $limit). One row: {returned (how many vectors the index gave: fewer than $k when
// it holds no more), eligible (how many distinct items passed), page: [rows as
// langgraph/vectors/search]}.
// The caller asks again with a larger $k while the page is not full, so an item is never lost
// to ineligible or filtered-out neighbours (graphmem.db.ops.langgraph_vectors).
// $search_tenants, $pairs, $tenants, $clearance, $now, $conditions: as langgraph/search;
// $vector, $zero: as langgraph/vectors/search; $k: how many nearest vectors to ask for.
CALL db.index.vector.queryNodes('langgraph_vector', $k, $vector) YIELD node
WITH collect(node) AS hits
CALL (hits) {
  UNWIND hits AS hit
  MATCH (hit)-[:EMBEDS]->(r:Record)-[:IN_SCOPE]->(s:Scope)
  WITH DISTINCT r, s
  WHERE s.tenant IN $search_tenants AND {{langgraph_namespace}}
    AND r.lg_order STARTS WITH s.langgraph_key
  {{langgraph_item}}
  CALL (r) {
    MATCH (v:LgVector)-[:EMBEDS]->(r)
    WHERE size(v.vector) = size($vector)
    RETURN max(CASE WHEN v.zero OR $zero THEN 0.5
                    ELSE vector.similarity.cosine(v.vector, $vector) END) AS sim
  }
  WITH r, s, sim,
       [i IN range(0, size($search_tenants) - 1) WHERE $search_tenants[i] = s.tenant][0] AS t
  ORDER BY sim DESC, t, s.langgraph_seq, r.lg_order
  RETURN collect({metadata_json: r.metadata_json, created_at: r.created_at,
                  lg_chain_seq: r.lg_chain_seq, lg_created_at: r.lg_created_at, id: r.id,
                  lg_ttl: r.lg_ttl, sim: sim}) AS ranked
}
RETURN size(hits) AS returned, size(ranked) AS eligible,
       ranked[$offset..$offset + $limit] AS page
