// What decides whether logged retrievals ($ids) were made within a deletion's reach
// (graphmem.deletion.reach.retrieval_within decides): tenant, clearance and query scope.
// Ids that name no retrieval are left out.
UNWIND $ids AS id
MATCH (q:Retrieval {id: id})
USING INDEX SEEK q:Retrieval(id)
RETURN q.id AS id, q.tenant AS tenant, q.clearance AS clearance, q.scope_json AS scope_json
