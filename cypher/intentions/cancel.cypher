// Cancel a locked intention if it is still pending. Run after intentions/lock in the same
// transaction; the transition keeps who, why and when. `ours` is true when this call's $token
// already cancelled it: a run of the call again after its commit's acknowledgement was lost
// still reports the one success (graphmem.db.base.StoreBase.transaction).
MATCH (i:Intention {id: $id})
USING INDEX SEEK i:Intention(id)
REMOVE i._lock
WITH i, i.status AS before, coalesce(i.cancel_token = $token, false) AS ours
CALL (i, before) {
  WITH i
  WHERE before = 'pending'
  SET i.status = 'cancelled', i.cancelled_at = $at, i.cancelled_by = $by,
      i.cancel_reason = $reason, i.cancel_token = $token
  CREATE (t:Transition {intention_id: i.id, kind: 'cancel', by: $by, reason: $reason, at: $at})
  CREATE (t)-[:ON]->(i)
}
RETURN before, ours
