// What decides whether records or intentions are within a principal's reach
// (docs/spec/eligibility.md; graphmem.models.Principal.reaches decides): tenant, sensitivity rank
// and scope pairs, by id.
// $ids: record or intention ids; an id naming none of the nodes asked for comes back with
// found = false.
// $node: 'record' or 'intention' judges only that label's node of the id (a record and an
// intention may share an id: a call about one must never be judged by the other);
// 'either': the record, else the intention (as deletion/roots_by_id resolves a root).
UNWIND $ids AS id
OPTIONAL MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
OPTIONAL MATCH (i:Intention {id: id})
USING INDEX SEEK i:Intention(id)
WITH id, CASE $node WHEN 'record' THEN r WHEN 'intention' THEN i ELSE coalesce(r, i) END AS n
OPTIONAL MATCH (n)-[:IN_SCOPE]->(s:Scope)
RETURN id, n IS NOT NULL AS found, n.tenant AS tenant, n.sensitivity_rank AS rank,
  s.pairs AS pairs
