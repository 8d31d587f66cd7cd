// Create record nodes in their (already merged) scopes. Lineage edges follow in
// edges_*.cypher, once every node of the batch exists, so no query both reads and writes
// the same label (which would force an Eager plan step).
UNWIND $rows AS row
MATCH (s:Scope {key: row.scope_key})
CREATE (r:Record)-[:IN_SCOPE]->(s)
SET r = row.props
RETURN count(r) AS created
