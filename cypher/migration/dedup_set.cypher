// Store recomputed dedup keys ($rows: {id, dedup_key}); only rows whose key changed are sent.
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
USING INDEX SEEK r:Record(id)
WHERE r.content IS NOT NULL
SET r.dedup_key = row.dedup_key, r.rev = coalesce(r.rev, 0) + 1
WITH r
CALL (r) {
  {{scope_bump}}
}
RETURN count(r) AS updated
