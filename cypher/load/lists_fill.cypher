// After an offline initial load (graphmem.db.bulk_load): the list properties a CSV cell could
// not hold, an empty list, get their empty list, as records/create stores them. The Record's
// list properties are named here (graphmem.db.bulk_load.FILLED_LISTS; a test holds them to the
// record row's lists), each set only where missing; a Scope's `pairs` are never empty.
// In batches, each its own transaction, two at a time: run in an auto-commit transaction.
CALL () {
  MATCH (r:Record)
  WHERE r.supersedes IS NULL OR r.derived_from IS NULL OR r.evidence_ids IS NULL
  RETURN r
}
CALL (r) {
  FOREACH (_ IN CASE WHEN r.supersedes IS NULL THEN [1] ELSE [] END | SET r.supersedes = [])
  FOREACH (_ IN CASE WHEN r.derived_from IS NULL THEN [1] ELSE [] END | SET r.derived_from = [])
  FOREACH (_ IN CASE WHEN r.evidence_ids IS NULL THEN [1] ELSE [] END | SET r.evidence_ids = [])
} IN 2 CONCURRENT TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS nodes
