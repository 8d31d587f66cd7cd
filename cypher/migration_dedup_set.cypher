// Store recomputed dedup keys ($rows: {id, dedup_key}); only rows whose key changed are sent.
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
WHERE r.content IS NOT NULL
SET r.dedup_key = row.dedup_key, r.rev = coalesce(r.rev, 0) + 1
WITH r
CALL (r) {
  MATCH (r)-[:IN_SCOPE]->(s:Scope)
  MERGE (sv:ScopeVersion {key: s.key})
    ON CREATE SET sv.epoch = randomUUID(), sv.tenant = s.tenant
  SET sv.rev = coalesce(sv.rev, 0) + 1
  SET r.stamp = sv.rev  // the change, for delta reads (candidates_delta)
}
RETURN count(r) AS updated
