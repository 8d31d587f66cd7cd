// Delete up to $limit nodes that one evaluation run wrote, and nothing else: every tenant,
// record id, intention id and deletion requester of a run starts with its $prefix
// (graphmem.eval_namespace). Exposures and uses go with their retrievals.
CALL () {
  MATCH (s:Scope) WHERE s.tenant STARTS WITH $prefix
  MERGE (sv:ScopeVersion {key: s.key})
    ON CREATE SET sv.epoch = randomUUID(), sv.tenant = s.tenant
  SET sv.rev = coalesce(sv.rev, 0) + 1, sv.epoch = randomUUID()  // records vanish: no delta
}
CALL () {
  MATCH (n:Record|Intention|Scope|ScopeVersion|WriteSlot|Retrieval|CandidateSet|Assertion)
  WHERE n.tenant STARTS WITH $prefix
  RETURN n
  UNION
  MATCH (n:WriteDecision) WHERE n.record_id STARTS WITH $prefix
  RETURN n
  UNION
  MATCH (n:Transition) WHERE coalesce(n.record_id, n.intention_id) STARTS WITH $prefix
  RETURN n
  UNION
  MATCH (n:DeletionRequest) WHERE n.requested_by STARTS WITH $prefix
  RETURN n
}
WITH n LIMIT $limit
CALL (n) {
  MATCH (x:Exposure|Use)-[:OF]->(n)
  DETACH DELETE x
}
DETACH DELETE n
RETURN count(*) AS deleted
