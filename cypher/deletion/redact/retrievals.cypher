// Replace the query text of retrievals that held a redaction term ($rows: {id, query}).
// Rows whose text is already the redacted text change nothing.
UNWIND $rows AS row
MATCH (q:Retrieval {id: row.id})
USING INDEX SEEK q:Retrieval(id)
WHERE q.query <> row.query
SET q.query = row.query, q.redacted_at = $at, q.redacted_by_request = $request_id
RETURN count(q) AS redacted
