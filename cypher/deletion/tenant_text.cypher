// Every string (or list-of-strings) property of the tenants' graph that holds a redaction term
// (docs/spec/deletion.md), one row per (node or relationship, property).
// The tenants' graph: their Scopes, ScopeVersions and assertion groups; the Records and Intentions in them; the Transitions ON and
// the WriteDecisions DECIDED on those (and decisions logged with the tenant, which discarded
// proposals leave without an edge); their Retrievals and CandidateSets; the Exposures and
// Uses OF those retrievals; the DeletionRequests naming a tenant; every node of any other
// label one relationship away from one of these, in either direction, unless it names another
// tenant (`tenant`, `tenants`): a node kind added later (a note on a record, a feedback on a
// retrieval) is the tenant's graph too; and every relationship that starts at one of these
// nodes (every relationship the write queries create does).
// Properties are found generically, with keys(n) and n[key], so a field added later is
// scanned too. $pattern: null (every string is a candidate), or the regular expression that
// narrows the candidates without ever dropping one the client's matcher would match
// (graphmem.deletion.redaction.narrowing); the client decides.
// $reach: null (the whole of the tenants' graph), or a deletion's reach ({pairs, max_rank,
// retrievals, request}: graphmem.deletion.reach.text_reach), the part of that graph its
// principal may change: Scopes holding every pair; the Records and Intentions in them at
// most max_rank, with their Transitions and WriteDecisions; the WriteDecisions logged with
// such a scope and rank (a discarded proposal's, which has no record:
// cypher/write/decision_log.cypher); the assertion groups only such records assert; the
// Retrievals listed (made within the reach: tenant, clearance, query scope), with their
// Exposures and Uses; the DeletionRequests made with this very reach; and the nodes one
// relationship away from these, as above. Tenant-wide nodes (every assertion group,
// ScopeVersions, CandidateSets, decisions logged before they kept their scope) are a wider
// principal's.
// $skip: keys not to report (the caller's structural keys; empty to report everything).
// $after: null, or a time: log nodes (Transition, WriteDecision, Retrieval, Exposure, Use,
// DeletionRequest) written after it, and their relationships, are left out. Written means
// the server's clock at the write (written_at), never the caller's `now` (at), which an
// as-of read sets in the past; nodes from before written_at existed fall back to at.
CALL () {
  MATCH (n:Scope) WHERE n.tenant IN $tenants
    AND ($reach IS NULL OR all(p IN $reach.pairs WHERE p IN n.pairs))
  RETURN n
  UNION
  MATCH (s:Scope)<-[:IN_SCOPE]-(n) WHERE s.tenant IN $tenants
    AND ($reach IS NULL OR (all(p IN $reach.pairs WHERE p IN s.pairs)
         AND coalesce(n.sensitivity_rank, $reach.max_rank + 1) <= $reach.max_rank))
  RETURN n
  UNION
  MATCH (s:Scope)<-[:IN_SCOPE]-(r)<-[:ON|DECIDED]-(n) WHERE s.tenant IN $tenants
    AND ($reach IS NULL OR (all(p IN $reach.pairs WHERE p IN s.pairs)
         AND coalesce(r.sensitivity_rank, $reach.max_rank + 1) <= $reach.max_rank))
  RETURN n
  UNION
  MATCH (n:Assertion) WHERE n.tenant IN $tenants AND $reach IS NULL
  RETURN n
  UNION
  MATCH (s:Scope)<-[:IN_SCOPE]-(r:Record)-[:ASSERTS]->(n:Assertion)
  WHERE $reach IS NOT NULL AND s.tenant IN $tenants
    AND all(p IN $reach.pairs WHERE p IN s.pairs)
    AND coalesce(r.sensitivity_rank, $reach.max_rank + 1) <= $reach.max_rank
    AND NOT EXISTS {
      MATCH (n)<-[:ASSERTS]-(o:Record)
      WHERE coalesce(o.sensitivity_rank, $reach.max_rank + 1) > $reach.max_rank
         OR NOT EXISTS { (o)-[:IN_SCOPE]->(os:Scope)
                         WHERE all(p IN $reach.pairs WHERE p IN os.pairs) } }
  RETURN n
  UNION
  MATCH (n:ScopeVersion) WHERE n.tenant IN $tenants AND $reach IS NULL
  RETURN n
  UNION
  MATCH (n:WriteDecision) WHERE n.tenant IN $tenants
    AND ($reach IS NULL OR (n.pairs IS :: LIST<STRING NOT NULL> NOT NULL
         AND all(p IN $reach.pairs WHERE p IN n.pairs)
         AND coalesce(n.sensitivity_rank, $reach.max_rank + 1) <= $reach.max_rank))
  RETURN n
  UNION
  MATCH (n:Retrieval) WHERE n.tenant IN $tenants
    AND ($reach IS NULL OR n.id IN $reach.retrievals)
  RETURN n
  UNION
  MATCH (n:CandidateSet) WHERE n.tenant IN $tenants AND $reach IS NULL
  RETURN n
  UNION
  MATCH (q:Retrieval)<-[:OF]-(n) WHERE q.tenant IN $tenants
    AND ($reach IS NULL OR q.id IN $reach.retrievals)
  RETURN n
  UNION
  MATCH (n:DeletionRequest) WHERE any(t IN coalesce(n.tenants, []) WHERE t IN $tenants)
    AND ($reach IS NULL OR n.reach_json = $reach.request)
  RETURN n
}
CALL (n) {
  RETURN n AS node
  UNION
  MATCH (n)--(m)
  WHERE NOT (m:Record OR m:Intention OR m:Scope OR m:ScopeVersion OR m:Assertion
             OR m:WriteDecision OR m:Transition OR m:Retrieval OR m:CandidateSet OR m:Exposure
             OR m:Use OR m:DeletionRequest)
    AND coalesce(m.tenant IN $tenants, true)
    AND NOT (m.tenants IS :: LIST<ANY> NOT NULL AND none(t IN m.tenants WHERE t IN $tenants))
  RETURN m AS node
}
WITH DISTINCT node AS n
WHERE $after IS NULL
   OR NOT (n:Transition OR n:WriteDecision OR n:Retrieval OR n:Exposure OR n:Use
           OR n:DeletionRequest)
   OR NOT coalesce(coalesce(n.written_at, n.at, n.started_at) > $after, false)
CALL (n) {
  WITH n, [k IN keys(n) WHERE NOT k IN $skip AND any(s IN
      CASE WHEN n[k] IS :: STRING THEN [n[k]]
           WHEN n[k] IS :: LIST<STRING NOT NULL> THEN n[k] ELSE [] END
      WHERE $pattern IS NULL OR s =~ $pattern)]
    AS hits
  UNWIND hits AS key
  RETURN elementId(n) AS eid, false AS rel, labels(n) AS labels, key, n[key] AS value
  UNION ALL
  MATCH (n)-[e]->()
  WITH e, [k IN keys(e) WHERE NOT k IN $skip AND any(s IN
      CASE WHEN e[k] IS :: STRING THEN [e[k]]
           WHEN e[k] IS :: LIST<STRING NOT NULL> THEN e[k] ELSE [] END
      WHERE $pattern IS NULL OR s =~ $pattern)]
    AS hits
  UNWIND hits AS key
  RETURN elementId(e) AS eid, true AS rel, [type(e)] AS labels, key, e[key] AS value
}
RETURN eid, rel, labels, key, value,
  coalesce(n.id, n.record_id, n.intention_id, n.retrieval_id, n.digest, n.key, eid) AS owner,
  NOT rel AND n:Record AND NOT coalesce(n.erased, false) AS live_record,
  coalesce(n.quarantined, false) OR coalesce(n.pending_recompute, false) AS held
ORDER BY owner, rel, key
