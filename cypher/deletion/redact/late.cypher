// Link to the request, as REDACT, the records and intentions the apply's last scan redacted
// that the plan did not list (docs/spec/deletion.md#apply): written after planning, they hold
// a term, and the report (and the certificate made from it) lists every node the apply
// changed. $eids: the element ids of the nodes the scan changed (others are skipped: log
// nodes, relationships). The edge says `late`; the request counts them (`late_count`), so
// the verification expects its planned nodes and these.
MATCH (req:DeletionRequest {id: $request_id})
USING INDEX SEEK req:DeletionRequest(id)
UNWIND $eids AS eid
MATCH (n) WHERE elementId(n) = eid AND (n:Record OR n:Intention)
  AND NOT EXISTS { (req)-[:DISPOSED]->(n) }
CREATE (req)-[:DISPOSED {disposition: 'REDACT', at: $at, changed: true, late: true}]->(n)
WITH req, count(n) AS late
SET req.late_count = coalesce(req.late_count, 0) + late
RETURN late
