// What decides whether records or intentions are within a principal's reach
// (docs/spec/eligibility.md; graphmem.models.Principal.reaches decides): tenant, sensitivity rank
// and scope pairs, by id.
// $ids: record or intention ids; an id naming neither comes back with found = false.
UNWIND $ids AS id
OPTIONAL MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
OPTIONAL MATCH (i:Intention {id: id})
USING INDEX SEEK i:Intention(id)
WITH id, coalesce(r, i) AS n
OPTIONAL MATCH (n)-[:IN_SCOPE]->(s:Scope)
RETURN id, n IS NOT NULL AS found, n.tenant AS tenant, n.sensitivity_rank AS rank,
  s.pairs AS pairs
