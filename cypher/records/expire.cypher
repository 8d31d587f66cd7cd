// Declared expiry: the record stops being active at $at.
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
MATCH (r:Record {id: $id})
USING INDEX SEEK r:Record(id)
WHERE NOT r.erased
SET r.expires_at = $at, r.rev = coalesce(r.rev, 0) + 1
WITH r
CALL (r) {
  MATCH (r)-[:IN_SCOPE]->(s:Scope)
  MERGE (sv:ScopeVersion {key: s.key})
    ON CREATE SET sv.epoch = randomUUID(), sv.tenant = s.tenant
  // lock, then read (graphmem.db.slots): `SET sv.rev = sv.rev + 1` in a later statement of a
  // transaction that holds the lock already deadlocks with a transaction waiting for it
  SET sv.locked = true
  WITH r, sv, coalesce(sv.rev, 0) + 1 AS rev
  SET sv.rev = rev, r.stamp = rev  // the change, for delta reads (candidates_delta)
  REMOVE sv.locked
}
RETURN r.id AS id
