// Records that cite a deleted record in evidence_ids (EVIDENCED_BY): dangling citations once
// the deletion is applied. $ids: the ids being deleted. Deleted citers are filtered by the caller.
UNWIND $ids AS id
MATCH (gone:Record {id: id})<-[:EVIDENCED_BY]-(c:Record)
RETURN c.id AS id, c.kind AS kind, c.tenant AS tenant, coalesce(c.erased, false) AS erased,
  collect(DISTINCT gone.id) AS cites
ORDER BY id
