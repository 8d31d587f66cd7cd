// Create record nodes in their (already merged) scopes. Lineage edges follow in
// edges_*.cypher, once every node of the batch exists, so no query both reads and writes
// the same label (which would force an Eager plan step).
// $rows: {props, times: {created_at, valid_from, expires_at} as ISO-8601 strings or null,
// scope_key}.
UNWIND $rows AS row
MATCH (s:Scope {key: row.scope_key})
CREATE (r:Record)-[:IN_SCOPE]->(s)
SET r = row.props, r.created_at = datetime(row.times.created_at),
    r.valid_from = datetime(row.times.valid_from), r.expires_at = datetime(row.times.expires_at)
// Answers cached by candidates see the new records (store.Neo4jStore.candidates).
// Each new record is stamped with the version that made it (delta reads: candidates_delta).
WITH s, collect(r) AS made
MERGE (sv:ScopeVersion {key: s.key})
  ON CREATE SET sv.epoch = randomUUID(), sv.tenant = s.tenant
SET sv.rev = coalesce(sv.rev, 0) + 1
FOREACH (x IN made | SET x.stamp = sv.rev)
RETURN sum(size(made)) AS created
