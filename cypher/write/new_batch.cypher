// Many policy writes of new records in one statement and one commit (writers into one store
// group-commit, graphmem.db.group_commit). $writes: write/new.cypher's $write maps, one per write,
// sorted by scope key (each converted as write/new converts its own); $slots: the sorted union of
// their slots. Every slot of the batch is locked first, in order (as a single write locks its slots
// before anything else), then each write, as `w`, runs write/new's parts in turn: each sees
// what the ones before it stored, so a duplicate of an earlier write in the batch, like any write
// write_fresh turns away, stores nothing and comes back without a row (its client then decides it
// alone). Records are linked to their Assertion groups last, in the groups' order.
// Returns the positions in $writes of the writes stored (an id alone would not tell
// two identical proposals apart). Writes that reference other records are never batched (the
// records they link would be locked in no common order).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
CALL () {
  UNWIND $slots AS key
  MATCH (l:WriteSlot {key: key})
  USING INDEX SEEK l:WriteSlot(key)
  SET l.locked = true
  REMOVE l.locked
}
UNWIND range(0, size($writes) - 1) AS pos
WITH pos, $writes[pos] AS row
WITH pos, row, row.decision AS d
WITH pos, row {.*, now: datetime(row.now), decision: d {.*, at: datetime(d.at)}} AS w
CALL (w) {
  {{write_probe}}
  {{write_fresh}}
  {{record_store}}
  RETURN r, a
}
WITH pos, r, a
ORDER BY a.gkey
{{record_assert}}
RETURN pos
