// Store recomputed thread keys ($rows: {id, thread_key}); only rows whose key changed are sent.
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
USING INDEX SEEK r:Record(id)
WHERE r.thread IS NOT NULL
SET r.thread_key = row.thread_key, r.rev = coalesce(r.rev, 0) + 1
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
RETURN count(r) AS updated
