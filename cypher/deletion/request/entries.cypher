// Every node a deletion request disposed of, as ONE row of parallel lists (a row per node
// decodes slowly for large requests): id, label, kind ('' for intentions: collect() drops
// nulls), disposition, when (an ISO string: the driver's DateTime hydration is slow in bulk),
// whether the apply changed it (false when an earlier request or run had already done so)
// and whether it was a root of the request. Ordered by id. A node is disposed of by a
// DISPOSED edge, or, a record the request erased itself (changed), by its id on one of the
// request's ErasureBatch nodes.
MATCH (req:DeletionRequest {id: $id})
USING INDEX SEEK req:DeletionRequest(id)
CALL (req) {
  MATCH (req)-[x:DISPOSED]->(n)
  RETURN n.id AS id, CASE WHEN n:Record THEN 'record' ELSE 'intention' END AS node,
    coalesce(n.kind, '') AS kind, x.disposition AS disposition, toString(x.at) AS at,
    coalesce(x.changed, false) AS changed, coalesce(x.root, false) AS root
  UNION ALL
  MATCH (req)-[:ERASED]->(b:ErasureBatch)
  UNWIND b.ids AS rid
  MATCH (n:Record {id: rid})
  USING INDEX SEEK n:Record(id)
  RETURN n.id AS id, 'record' AS node, coalesce(n.kind, '') AS kind,
    'DELETE' AS disposition, toString(b.at) AS at, true AS changed, rid IN b.roots AS root
}
WITH id, node, kind, disposition, at, changed, root
ORDER BY id
RETURN collect(id) AS ids, collect(node) AS nodes, collect(kind) AS kinds,
  collect(disposition) AS dispositions, collect(at) AS ats, collect(changed) AS changed,
  collect(root) AS roots
