// Part of queries, not a query: `{{record_store}}` stores one policy write: the record in its
// scope, its lineage edges, its assertion group and its write decision, stamped with the sequence
// of the write's slot (r.wslot, r.wseq) and the slot's epoch (r.wepoch: the index
// record_slot_stamp, by which delta reads find the record), bumped here. {{write_probe}} locked
// that slot earlier in the transaction, so the stamp takes no lock of its own (the bump locks,
// then reads, as every version bump does: graphmem.db.slots): writers into one scope do not queue
// on the scope's one ScopeVersion node. Cached candidates answers see the new record through the
// slot's version (parts/write_slot_versions.cypher), delta reads through r.wepoch/r.wseq. The
// Scope, WriteSlot and Assertion nodes are MATCHed, never MERGEd (see records/create.cypher):
// write/nodes_ensure.cypher created them; nothing is stored when the Scope or the slot is
// missing. Leaves `r` (the record) and `a` (its Assertion group, or null), which
// {{record_assert}} links after it.
// It reads the write from the map `w` the query binds (`WITH $write AS w`, or a row of a batch),
// keeps `w` and passes it into its subqueries. w.row: a records/create row; w.slot: the key of
// the write's (dedup) slot and w.slot_index its index in the scope; w.supersedes, w.derived_from,
// w.evidence_ids: ids (stored and not erased: the caller checked); w.gkey: assertion group or
// null; w.decision: {tenant, disposition,
// reason, at, by, token, superseded}: `token` is the writing call's own random id, by which a
// repeat of the call knows the record it stored (graphmem.write.admission); `superseded` the
// reason of the "superseded" transition logged, in the same transaction, on each record of
// w.supersedes when the record persists (a quarantined one supersedes nothing: docs/spec/status.md).
MATCH (s:Scope {key: w.row.scope_key})
USING INDEX SEEK s:Scope(key)
MATCH (l:WriteSlot {key: w.slot})
USING INDEX SEEK l:WriteSlot(key)
SET l.locked = true
WITH w, s, l, coalesce(l.seq, 0) + 1 AS wseq
SET l.seq = wseq
REMOVE l.locked
WITH w, s, wseq, coalesce(l.epoch, '') AS wepoch
OPTIONAL MATCH (a:Assertion {gkey: w.gkey})
USING INDEX SEEK a:Assertion(gkey)
CREATE (r:Record)-[:IN_SCOPE]->(s)
SET r = w.row.props, r.created_at = datetime(w.row.times.created_at),
    r.valid_from = datetime(w.row.times.valid_from), r.expires_at = datetime(w.row.times.expires_at),
    r.wslot = w.slot_index, r.wseq = wseq, r.wepoch = wepoch
CREATE (:WriteDecision {
  record_id: w.row.props.id, tenant: w.decision.tenant, disposition: w.decision.disposition,
  reason: w.decision.reason, at: w.decision.at, by: w.decision.by, token: w.decision.token
})-[:DECIDED]->(r)
WITH w, a, r
CALL (r, w) {
  UNWIND w.supersedes AS id
  MATCH (p:Record {id: id})
  USING INDEX SEEK p:Record(id)
  CREATE (r)-[:SUPERSEDES]->(p)
  WITH w, p WHERE w.decision.disposition = 'PERSIST'
  CREATE (:Transition {record_id: p.id, kind: 'superseded', by: w.decision.by,
                       reason: w.decision.superseded, at: w.decision.at,
                       successor: r.id})-[:ON]->(p)
}
CALL (r, w) {
  UNWIND range(0, size(w.derived_from) - 1) AS i
  MATCH (p:Record {id: w.derived_from[i]})
  USING INDEX SEEK p:Record(id)
  CREATE (r)-[:DERIVED_FROM {ord: i}]->(p)
}
CALL (r, w) {
  UNWIND w.evidence_ids AS id
  MATCH (p:Record {id: id})
  USING INDEX SEEK p:Record(id)
  CREATE (r)-[:EVIDENCED_BY]->(p)
}
