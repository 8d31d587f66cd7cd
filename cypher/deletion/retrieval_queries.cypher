// The query text of logged retrievals ($ids), to be redacted by the client.
UNWIND $ids AS id
MATCH (q:Retrieval {id: id})
USING INDEX SEEK q:Retrieval(id)
RETURN q.id AS id, q.query AS query
