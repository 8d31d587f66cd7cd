// Neo4j Browser / Bloom snippet: a subject's footprint, i.e. what a deletion would touch.
// Set the parameters first, e.g.
//   :param tenant => 'acme'
//   :param subject_pairs => ['["tenant", "acme"]', '["user", "u-17"]']
// (the subject as JSON-encoded [key, value] strings, the encoding of Scope.pairs).
// Lists every record and intention in the subject's scope, then every record derived from
// them, with its minimum depth, kind and state.
{{subject_scopes}}
MATCH (s)<-[:IN_SCOPE]-(root)
WHERE root:Record OR root:Intention
CALL (root) {
  RETURN root AS n, 0 AS depth
  UNION
  MATCH p = (root)<-[:DERIVED_FROM*]-(d:Record)
  RETURN d AS n, min(length(p)) AS depth
}
WITH n, min(depth) AS depth
RETURN n.id AS id, labels(n)[0] AS label, n.kind AS kind, depth,
  coalesce(n.erased, false) AS erased, coalesce(n.pending_recompute, false) AS pending_recompute,
  coalesce(n.quarantined, false) AS quarantined, n.status AS intention_status
ORDER BY depth, id
