// Redact terms in intentions ($rows: {id, props}, props: the redacted action, cue kind and
// value, and the fingerprint and cue digest of the result), once per request.
MATCH (req:DeletionRequest {id: $request_id})
USING INDEX SEEK req:DeletionRequest(id)
UNWIND $rows AS row
MATCH (i:Intention {id: row.id})
USING INDEX SEEK i:Intention(id)
WHERE NOT EXISTS { (req)-[:DISPOSED]->(i) } AND NOT coalesce(i.erased, false)
SET i.action = row.props.action, i.trigger_kind = row.props.trigger_kind,
    i.trigger_value = row.props.trigger_value, i.fingerprint = row.props.fingerprint,
    i.cue_digest = row.props.cue_digest, i.redacted_at = $at, i.redacted_by_request = $request_id
RETURN count(i) AS redacted
