// Every node a deletion request disposed of, as ONE row of parallel lists (a row per node
// decodes slowly for large requests): id, label, kind ('' for intentions: collect() drops
// nulls), disposition, when (an ISO string: the driver's DateTime hydration is slow in bulk),
// whether the apply changed it (false when an earlier request or run had already done so)
// and whether it was a root of the request. Ordered by id.
MATCH (req:DeletionRequest {id: $id})-[x:DISPOSED]->(n)
USING INDEX SEEK req:DeletionRequest(id)
WITH n, x
ORDER BY n.id
RETURN collect(n.id) AS ids,
  collect(CASE WHEN n:Record THEN 'record' ELSE 'intention' END) AS nodes,
  collect(coalesce(n.kind, '')) AS kinds, collect(x.disposition) AS dispositions,
  collect(toString(x.at)) AS ats, collect(coalesce(x.changed, false)) AS changed,
  collect(coalesce(x.root, false)) AS roots
