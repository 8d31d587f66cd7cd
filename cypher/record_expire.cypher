// Declared expiry: the record stops being active at $at.
MATCH (r:Record {id: $id})
WHERE NOT r.erased
SET r.expires_at = $at, r.rev = coalesce(r.rev, 0) + 1
WITH r
CALL (r) {
  MATCH (r)-[:IN_SCOPE]->(s:Scope)
  MERGE (sv:ScopeVersion {key: s.key})
    ON CREATE SET sv.epoch = randomUUID(), sv.tenant = s.tenant
  SET sv.rev = coalesce(sv.rev, 0) + 1
  SET r.stamp = sv.rev  // the change, for delta reads (candidates_delta)
}
RETURN r.id AS id
