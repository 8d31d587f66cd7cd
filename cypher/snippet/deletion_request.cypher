// Neo4j Browser / Bloom snippet: the state of a deletion request.
// Set the parameter first, e.g.   :param request_id => 'del-...'
// One row per disposition with how many nodes got it and how many the apply changed, beside
// the request's state, who asked, why, and when it started and finished.
MATCH (req:DeletionRequest {id: $request_id})
USING INDEX SEEK req:DeletionRequest(id)
OPTIONAL MATCH (req)-[x:DISPOSED]->(n)
WITH req, x.disposition AS disposition, count(n) AS nodes,
  sum(CASE WHEN x.changed THEN 1 ELSE 0 END) AS changed
RETURN req.id AS request, req.state AS state, req.requested_by AS requested_by,
  req.reason AS reason, req.started_at AS started_at, req.finished_at AS finished_at,
  req.planned_count AS planned, disposition, nodes, changed
ORDER BY disposition
