// Part of queries, not a query: `{{scope_bump_batch}}` is parts/scope_bump for a batch of
// changed records of one Scope: `s` the Scope, `members` its records this statement changed.
// The ScopeVersion is locked and written once for the batch, and each record gets a rev of its
// own (as records/create gives new records): delta reads (candidates_delta.cypher) trust a
// delta only when they found a record for every rev since their answer, so a rev shared by
// records of one transaction could hide those whose index entries were not visible yet. Lock,
// then read (graphmem.db.slots). Put in as the body of a `CALL (s, members) { ... }`.
MERGE (sv:ScopeVersion {key: s.key})
  ON CREATE SET sv.epoch = randomUUID(), sv.tenant = s.tenant
SET sv.locked = true
WITH sv, members, coalesce(sv.rev, 0) + 1 AS rev
SET sv.rev = rev + size(members) - 1
REMOVE sv.locked
WITH sv, members, rev
UNWIND range(0, size(members) - 1) AS i
WITH sv, members[i] AS m, rev + i AS rev
SET m.stamp = rev, m.sepoch = coalesce(sv.epoch, '')
