// The storage of one policy write in one statement (issue 15): the record in its scope, its
// lineage edges, its assertion group, its write decision, and last the bump of its scope's
// version, so the ScopeVersion lock is held from here to the commit only. The Scope,
// ScopeVersion and Assertion nodes are MATCHed, never MERGEd (see records_create.cypher):
// write_nodes_ensure.cypher created them. No row comes back when the Scope or ScopeVersion
// is missing (nothing is created: the caller creates them and runs this again);
// `grouped` is false when $gkey names a missing Assertion (the caller links it with
// assertions_link.cypher). Same effects as records_create, edges_* and write_decision_log.
// $row: a records_create row; $supersedes, $derived_from, $evidence_ids: ids (stored: the
// caller checked); $gkey: assertion group or null; $decision: {tenant, disposition, reason,
// at, by}.
MATCH (s:Scope {key: $row.scope_key})
MATCH (sv:ScopeVersion {key: s.key})
OPTIONAL MATCH (a:Assertion {gkey: $gkey})
CREATE (r:Record)-[:IN_SCOPE]->(s)
SET r = $row.props, r.created_at = datetime($row.times.created_at),
    r.valid_from = datetime($row.times.valid_from), r.expires_at = datetime($row.times.expires_at)
CREATE (:WriteDecision {
  record_id: $row.props.id, tenant: $decision.tenant, disposition: $decision.disposition,
  reason: $decision.reason, at: $decision.at, by: $decision.by
})-[:DECIDED]->(r)
WITH sv, a, r
CALL (r) {
  UNWIND $supersedes AS id
  MATCH (p:Record {id: id})
  CREATE (r)-[:SUPERSEDES]->(p)
}
CALL (r) {
  UNWIND range(0, size($derived_from) - 1) AS i
  MATCH (p:Record {id: $derived_from[i]})
  CREATE (r)-[:DERIVED_FROM {ord: i}]->(p)
}
CALL (r) {
  UNWIND $evidence_ids AS id
  MATCH (p:Record {id: id})
  CREATE (r)-[:EVIDENCED_BY]->(p)
}
CALL (r, a) {
  WITH r, a WHERE a IS NOT NULL
  CREATE (r)-[:ASSERTS]->(a)
}
// answers cached by candidates see the new record; its stamp serves delta reads (lock,
// then read: graphmem.db.slots)
SET sv.locked = true
WITH sv, a, r, coalesce(sv.rev, 0) + 1 AS rev
SET sv.rev = rev, r.stamp = rev
REMOVE sv.locked
RETURN r.id AS id, a IS NOT NULL AS grouped
