// Part of queries, not a query: `{{write_slot_versions}}` is a clause that reads, for a Scope `s`,
// the version of each of its $slots WriteSlot nodes (a policy write stamps its record with its
// slot's sequence instead of bumping the Scope's one ScopeVersion, so writers into one scope do not
// queue on one node). `wslots`: [index, epoch, seq] per slot, index order; a missing slot reads as
// epoch '' and seq 0. A slot's epoch is new each time the node is created, so a slot deleted and
// created again is never mistaken for the old one (its seq starts again).
CALL (s) {
  UNWIND range(0, $slots - 1) AS i
  OPTIONAL MATCH (l:WriteSlot {key: s.key + '#' + toString(i)})
  USING INDEX SEEK l:WriteSlot(key)
  RETURN collect([i, coalesce(l.epoch, ''), coalesce(l.seq, 0)]) AS wslots
}
