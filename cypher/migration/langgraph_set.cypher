// Give LangGraph items written before the store kept them their search order, value facts,
// key chain and TTL, as a put of the store now writes them (cypher/langgraph/put.cypher), and
// their namespace Scope its langgraph_key (what every lg_order of the namespace starts with).
// An item that already has an order is left as it is.
// $rows: [{id, langgraph_key, order, chain_seq, created_at (ISO text), ttl (minutes or null),
// lg_facts, lg_num_paths, lg_nums}].
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
USING INDEX SEEK r:Record(id)
WHERE r.lg_order IS NULL
MATCH (r)-[:IN_SCOPE]->(s:Scope)
SET s.langgraph_key = coalesce(s.langgraph_key, row.langgraph_key),
    r.lg_order = row.order, r.lg_chain_seq = row.chain_seq, r.lg_created_at = row.created_at,
    r.lg_facts = row.lg_facts, r.lg_num_paths = row.lg_num_paths, r.lg_nums = row.lg_nums,
    r.lg_ttl = row.ttl, r.rev = coalesce(r.rev, 0) + 1
WITH r
CALL (r) {
  {{scope_bump}}
}
RETURN count(r) AS updated
