// The declared transitions and write decisions of one record, oldest first.
// `foreign` is true for a decision that is not the record's own: one logged apart from the
// record (with the proposal's tenant, scope pairs and sensitivity rank, returned too) or not
// linked to it, as for a proposal the policy discarded before the id was a record's. A bound
// caller is shown such a decision only when the proposal is within its reach
// (docs/spec/eligibility.md#confinement). A transition, and a decision stored with the record,
// are the record's own. `successor`: the record that superseded this one, which a
// supersession's reason names (null for a decision, and for a transition logged before it was
// kept): a bound caller who cannot read it is not told its id.
CALL () {
  MATCH (t:Transition {record_id: $id})
  USING INDEX SEEK t:Transition(record_id)
  RETURN t.kind AS kind, t.by AS by, t.reason AS reason, t.at AS at, false AS foreign,
    null AS tenant, null AS pairs, null AS rank, t.successor AS successor
  UNION ALL
  MATCH (w:WriteDecision {record_id: $id})
  USING INDEX SEEK w:WriteDecision(record_id)
  RETURN 'write:' + w.disposition AS kind, w.by AS by, w.reason AS reason, w.at AS at,
    w.pairs IS NOT NULL OR NOT EXISTS { (w)-[:DECIDED]->(:Record) } AS foreign,
    w.tenant AS tenant, w.pairs AS pairs, w.sensitivity_rank AS rank, null AS successor
}
RETURN kind, by, reason, at, foreign, tenant, pairs, rank, successor
ORDER BY at, kind
