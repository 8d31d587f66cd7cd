// Every node a deletion request disposed of, with its disposition, when, and whether the
// apply changed it (false when an earlier request or run had already done so).
MATCH (req:DeletionRequest {id: $id})-[x:DISPOSED]->(n)
RETURN n.id AS id, CASE WHEN n:Record THEN 'record' ELSE 'intention' END AS node,
  n.kind AS kind, x.disposition AS disposition, x.at AS at, x.changed AS changed,
  coalesce(x.root, false) AS root
ORDER BY id
