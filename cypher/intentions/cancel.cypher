// Cancel a locked intention if it is still pending. Run after intentions/lock in the same
// transaction; the transition keeps who, why and when.
MATCH (i:Intention {id: $id})
USING INDEX SEEK i:Intention(id)
REMOVE i._lock
WITH i, i.status AS before
CALL (i, before) {
  WITH i
  WHERE before = 'pending'
  SET i.status = 'cancelled', i.cancelled_at = $at, i.cancelled_by = $by,
      i.cancel_reason = $reason
  CREATE (t:Transition {intention_id: i.id, kind: 'cancel', by: $by, reason: $reason, at: $at})
  CREATE (t)-[:ON]->(i)
}
RETURN before
