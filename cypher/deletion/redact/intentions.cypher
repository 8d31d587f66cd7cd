// Redact terms in the action text of intentions ($rows: {id, action}), once per request.
MATCH (req:DeletionRequest {id: $request_id})
USING INDEX SEEK req:DeletionRequest(id)
UNWIND $rows AS row
MATCH (i:Intention {id: row.id})
USING INDEX SEEK i:Intention(id)
WHERE NOT EXISTS { (req)-[:DISPOSED]->(i) } AND NOT coalesce(i.erased, false)
SET i.action = row.action, i.redacted_at = $at, i.redacted_by_request = $request_id
RETURN count(i) AS redacted
