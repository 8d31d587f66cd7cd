// Store recomputed thread keys ($rows: {id, thread_key}); only rows whose key changed are sent.
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
USING INDEX SEEK r:Record(id)
WHERE r.thread IS NOT NULL
SET r.thread_key = row.thread_key, r.rev = coalesce(r.rev, 0) + 1
WITH r
CALL (r) {
  {{scope_bump}}
}
RETURN count(r) AS updated
