// Tombstones written before erasure kept a record's times and `admitted`
// (docs/spec/status.md#superseded: erasing a successor never reactivates what it replaced) lack
// them, so an old erased successor stopped superseding and its predecessors came back. For every
// such tombstone that supersedes a record: `admitted` is what its last admission event says (its
// write decision, a later quarantine or promote transition; PERSIST when none was logged, as for
// records put without the policy), and `created_at` is its erasure time when unknown (it existed
// then; as-of reads before the erasure see no successor). Bumps the scopes and stamps the
// tombstones so cached eligibility answers are recomputed.
MATCH (r:Record)
WHERE coalesce(r.erased, false) AND r.admitted IS NULL
  AND EXISTS { (r)-[:SUPERSEDES]->(:Record) }
CALL (r) {
  OPTIONAL MATCH (w:WriteDecision)-[:DECIDED]->(r)
  WITH collect({d: w.disposition, at: w.at}) AS decisions
  OPTIONAL MATCH (t:Transition)-[:ON]->(r)
  WHERE t.kind IN ['quarantine', 'promote']
  WITH decisions, collect({d: CASE t.kind WHEN 'promote' THEN 'PERSIST'
                                          ELSE 'QUARANTINE' END, at: t.at}) AS transitions
  UNWIND [e IN decisions + transitions WHERE e.d IS NOT NULL AND e.at IS NOT NULL] AS e
  WITH e ORDER BY e.at DESC
  RETURN collect(e.d)[0] AS last
}
SET r.admitted = (coalesce(last, 'PERSIST') = 'PERSIST'),
    r.created_at = coalesce(r.created_at, r.erased_at),
    r.rev = coalesce(r.rev, 0) + 1
WITH r
CALL (r) {
  {{scope_bump}}
}
RETURN count(r) AS updated
