// Part of queries, not a query: `{{write_probe}}` is the start of a policy write:
// lock the write's slots, then read what the policy decides on. It reads the write from the
// map `w` the query binds (`WITH $write AS w`, or a row of a batch), and keeps `w`.
// w.slots: sorted WriteSlot
// keys (graphmem.db.slots), locked in that order, so two writers never wait on each other in
// a cycle. A slot is a hash bucket of the scope and the proposal's dedup key (and thread):
// two identical proposals share a slot, so the second reads duplicates only after the first
// committed (exactly one PERSIST), while writers of different contents into one scope rarely
// share one and run side by side. MATCH then SET takes the exclusive lock at once (no shared
// lock to upgrade), held to the commit; nothing is left changed, so a write that stores
// nothing (a DISCARD) moves no version: record_store bumps the slot's seq. w.ids: the proposal's id and the ids it
// references (records/existing); w.scope_key, w.dedup_key, w.now, w.skew_ms: the twins of the proposal, records of the scope with that
// dedup key that a write at w.now duplicates (docs/spec/write-path.md; docs/write-path.md): admitted
// and neither retracted nor expired at w.now, nor superseded then (status rule 4 as in
// candidates.cypher, the scope itself as the query scope: a successor in a narrower scope or
// another tenant does not supersede there), and created and valid by w.now plus w.skew_ms
// milliseconds (the write policy's clock_skew). Not by w.now alone: a twin that a concurrent writer
// committed first, stamped by a clock a little ahead, or a little later than this write's stamp
// while this write waited for the slot, is the same memory, and found.
// w.max_rank: the proposal's sensitivity rank; a record above it is not its twin
// (docs/spec/write-path.md#duplicates: the check never reveals a record above the writer's view).
// Gives `locked`, `existing` ({id, fingerprint, erased, tokens: of its write decisions})
// and `duplicates` (ids). The duplicates are found by a seek of the dedup key's index,
// whatever the planner estimates: in a new database, after an import (the index's
// statistics still those of an empty store), it chose to read every record's dedup key, on
// every write (tests/integration/db/test_write_plans.py). The key is bound to a variable first: the seek
// takes its value from it (and `now`, which parts/successor_effective reads, is w.now).
// The successors' Scopes are read from each successor as a list, as in parts/record_active: no
// index can start that pattern, so the check costs the twin's few edges whatever the statistics.
CALL (w) {
  UNWIND w.slots AS key
  MATCH (l:WriteSlot {key: key})
  USING INDEX SEEK l:WriteSlot(key)
  SET l.locked = true
  REMOVE l.locked
  RETURN count(l) AS locked
}
CALL (w) {
  UNWIND w.ids AS id
  MATCH (r:Record {id: id})
  USING INDEX SEEK r:Record(id)
  RETURN collect({id: r.id, fingerprint: r.fingerprint, erased: r.erased,
                  tokens: [(r)<-[:DECIDED]-(d:WriteDecision) | d.token]}) AS existing
}
CALL (w) {
  WITH w.scope_key AS scope_key, w.dedup_key AS dedup_key, w.now AS now,
       w.now + duration({milliseconds: w.skew_ms}) AS horizon
  MATCH (s:Scope {key: scope_key})<-[:IN_SCOPE]-(r:Record {dedup_key: dedup_key})
  USING INDEX SEEK r:Record(dedup_key)
  WHERE NOT r.quarantined AND NOT r.pending_recompute AND NOT r.erased AND NOT r.retracted
    AND r.sensitivity_rank <= w.max_rank
    AND r.created_at <= horizon
    AND (r.valid_from IS NULL OR r.valid_from <= horizon)
    AND (r.expires_at IS NULL OR now < r.expires_at)
    AND NOT EXISTS {
      MATCH (r)<-[:SUPERSEDES]-(succ:Record)
      WHERE {{successor_effective}}
        AND any(ss IN [(succ)-[:IN_SCOPE]->(scope:Scope) | scope]
                WHERE ss.tenant = s.tenant AND all(p IN ss.pairs WHERE p IN s.pairs))
    }
  RETURN collect(r.id) AS duplicates
}
