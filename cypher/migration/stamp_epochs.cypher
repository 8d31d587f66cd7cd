// Every ScopeVersion and WriteSlot starts a new epoch (graphmem.db.migrations, "stamp_epochs"):
// delta reads (candidates_delta.cypher) find what changed since a version by its epoch and stamp
// (indexes record_scope_stamp, record_slot_stamp), and records changed before those indexes were
// stamped without an epoch; a new epoch makes every answer cached at an older one be computed
// again in full, so no delta spans a change it cannot find. In batches, each its own transaction:
// run in an auto-commit transaction.
CALL () {
  MATCH (v:ScopeVersion)
  RETURN v AS n
  UNION
  MATCH (l:WriteSlot)
  RETURN l AS n
}
CALL (n) {
  SET n.epoch = randomUUID()
} IN TRANSACTIONS OF 10000 ROWS
