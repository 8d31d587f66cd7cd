// After an offline initial load (graphmem.db.bulk_load): the list properties a CSV cell could
// not hold, an empty list, get their empty list, as records/create and scopes_merge store them.
// $record_keys: the Record properties that hold lists; $scope_keys: the Scope's. In batches, each
// its own transaction: run in an auto-commit transaction.
CALL () {
  MATCH (r:Record)
  RETURN r AS n, $record_keys AS keys
  UNION
  MATCH (s:Scope)
  RETURN s AS n, $scope_keys AS keys
}
CALL (n, keys) {
  FOREACH (k IN [k IN keys WHERE n[k] IS NULL] | SET n[k] = [])
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(*) AS nodes
