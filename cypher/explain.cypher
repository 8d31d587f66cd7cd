// The status of one record for a caller at $now: authorization and scope
// (docs/spec/eligibility.md), then the record's own status (parts/record_status; docs/status.md).
// Same parameters as candidates.cypher.
// Successors count as in candidates.cypher (rule 4). not_yet: why NOT_YET_VALID applies
// ('created': created after $now; 'valid_from': valid_from in the future; both can hold).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
MATCH (r:Record {id: $id})-[:IN_SCOPE]->(s:Scope)
USING INDEX SEEK r:Record(id)
WITH r, s, $tenant AS q_tenant, $pairs AS q_pairs, $now AS now
WITH r, s, now,
  [(r)<-[:SUPERSEDES]-(succ:Record)-[:IN_SCOPE]->(ss:Scope) WHERE {{successor_visible}}
     | succ.id] AS successors,
  [why IN [CASE WHEN $now < r.created_at THEN 'created' END,
           CASE WHEN $now < r.valid_from THEN 'valid_from' END] WHERE why IS NOT NULL]
    AS not_yet
RETURN r.id AS id,
  CASE
    WHEN NOT (r.tenant IN $tenants) OR r.sensitivity_rank > $clearance THEN 'UNAUTHORIZED'
    WHEN NOT (s.tenant = $tenant AND all(p IN s.pairs WHERE p IN $pairs)) THEN 'OUT_OF_SCOPE'
    ELSE {{record_status}}
  END AS status,
  successors, not_yet, r.tenant AS tenant, r.sensitivity_rank AS rank, s.pairs AS pairs
