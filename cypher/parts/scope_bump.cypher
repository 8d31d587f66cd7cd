// Part of queries, not a query: `{{scope_bump}}` is the clauses that tell cached candidates
// answers (Neo4jStore.candidates) that record `r` changed: they bump the rev of the
// ScopeVersion of `r`'s Scope (made when missing, with a new epoch) and stamp `r` with the new
// rev and the version's epoch (r.stamp, r.sepoch: the index record_scope_stamp, by which delta
// reads, candidates_delta.cypher, find what changed without visiting the scope). Lock, then read (graphmem.db.slots): `SET
// sv.rev = sv.rev + 1` in a later statement of a transaction that already holds the lock
// deadlocks with a transaction waiting for it. Put in where `r` is the only variable needed
// afterwards, as the body of a `CALL (r) { ... }` (it returns nothing).
MATCH (r)-[:IN_SCOPE]->(s:Scope)
MERGE (sv:ScopeVersion {key: s.key})
  ON CREATE SET sv.epoch = randomUUID(), sv.tenant = s.tenant
SET sv.locked = true
WITH r, sv, coalesce(sv.rev, 0) + 1 AS rev
SET sv.rev = rev, r.stamp = rev, r.sepoch = coalesce(sv.epoch, '')
REMOVE sv.locked
