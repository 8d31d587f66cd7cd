// The oldest intention of the Scope $scope_key that is pending, not erased and not expired
// at $now, with this action, cue, sensitivity and expiry: what storing the same intention
// again while it is pending finds instead of making a second one that would fire on the same
// event (docs/spec/intentions.md#exactly-once). Run after intentions/lock_scope.
MATCH (s:Scope {key: $scope_key})<-[:IN_SCOPE]-(i:Intention)
USING INDEX SEEK s:Scope(key)
WHERE i.status = 'pending' AND NOT coalesce(i.erased, false)
  AND (i.expires_at IS NULL OR $now < i.expires_at)
  AND i.action = $action AND i.trigger_kind = $trigger_kind
  AND i.trigger_value = $trigger_value AND i.sensitivity = $sensitivity
  AND ((i.expires_at IS NULL AND $expires_at IS NULL) OR i.expires_at = $expires_at)
RETURN i.id AS id
ORDER BY i.created_at, i.id
LIMIT 1
