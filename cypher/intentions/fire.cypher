// Fire a locked intention if it is still pending, not erased and not expired at $at. Run after
// intentions/lock in the same transaction. `ours` is true when this call's $token already fired
// it: a driver retry after an unacknowledged commit still reports the one success.
MATCH (i:Intention {id: $id})
USING INDEX SEEK i:Intention(id)
REMOVE i._lock
WITH i, i.status AS before, coalesce(i.erased, false) AS erased,
     i.expires_at IS NOT NULL AND $at >= i.expires_at AS expired,
     coalesce(i.fire_token = $token, false) AS ours
CALL (i, before, erased, expired) {
  WITH i
  WHERE before = 'pending' AND NOT erased AND NOT expired
  SET i.status = 'fired', i.fired_at = $at, i.fired_by = $by, i.fire_token = $token
  CREATE (t:Transition {intention_id: i.id, kind: 'fire', by: $by, reason: $reason, at: $at})
  CREATE (t)-[:ON]->(i)
}
RETURN before, erased, expired, ours
