// Part of queries, not a query: `{{record_store}}` stores one policy write: the record in its
// scope, its lineage edges, its assertion group and its write decision, stamped with the sequence
// of the write's slot (r.wslot, r.wseq), bumped here. {{write_probe}} locked that slot earlier in
// the transaction, so the stamp takes no lock of its own (the bump locks, then reads, as every
// version bump does: graphmem.db.slots): writers into one scope do not queue on the scope's one
// ScopeVersion node. Cached candidates answers see the new record through the slot's version
// (parts/write_slot_versions.cypher), delta reads through r.wslot/r.wseq. The Scope, WriteSlot and
// Assertion nodes are MATCHed, never MERGEd (see records/create.cypher): write/nodes_ensure.cypher
// created them; nothing is stored when the Scope or the slot is missing. Leaves `r` (the record)
// and `a` (its Assertion group, or null), which {{record_assert}} links after it.
// $row: a records/create row; $slot: the key of the write's (dedup) slot and $slot_index its
// index in the scope; $supersedes, $derived_from, $evidence_ids: ids (stored and not erased:
// the caller checked); $gkey: assertion group or null; $decision: {tenant, disposition,
// reason, at, by, token, superseded}: `token` is the writing call's own random id, by which a
// repeat of the call knows the record it stored (graphmem.write.admission); `superseded` the
// reason of the "superseded" transition logged, in the same transaction, on each record of
// $supersedes when the record persists (a quarantined one supersedes nothing: docs/spec/status.md).
MATCH (s:Scope {key: $row.scope_key})
USING INDEX SEEK s:Scope(key)
MATCH (l:WriteSlot {key: $slot})
USING INDEX SEEK l:WriteSlot(key)
SET l.locked = true
WITH s, l, coalesce(l.seq, 0) + 1 AS wseq
SET l.seq = wseq
REMOVE l.locked
WITH s, wseq
OPTIONAL MATCH (a:Assertion {gkey: $gkey})
USING INDEX SEEK a:Assertion(gkey)
CREATE (r:Record)-[:IN_SCOPE]->(s)
SET r = $row.props, r.created_at = datetime($row.times.created_at),
    r.valid_from = datetime($row.times.valid_from), r.expires_at = datetime($row.times.expires_at),
    r.wslot = $slot_index, r.wseq = wseq
CREATE (:WriteDecision {
  record_id: $row.props.id, tenant: $decision.tenant, disposition: $decision.disposition,
  reason: $decision.reason, at: $decision.at, by: $decision.by, token: $decision.token
})-[:DECIDED]->(r)
WITH a, r
CALL (r) {
  UNWIND $supersedes AS id
  MATCH (p:Record {id: id})
  USING INDEX SEEK p:Record(id)
  CREATE (r)-[:SUPERSEDES]->(p)
  WITH p WHERE $decision.disposition = 'PERSIST'
  CREATE (:Transition {record_id: p.id, kind: 'superseded', by: $decision.by,
                       reason: $decision.superseded, at: $decision.at})-[:ON]->(p)
}
CALL (r) {
  UNWIND range(0, size($derived_from) - 1) AS i
  MATCH (p:Record {id: $derived_from[i]})
  USING INDEX SEEK p:Record(id)
  CREATE (r)-[:DERIVED_FROM {ord: i}]->(p)
}
CALL (r) {
  UNWIND $evidence_ids AS id
  MATCH (p:Record {id: id})
  USING INDEX SEEK p:Record(id)
  CREATE (r)-[:EVIDENCED_BY]->(p)
}
