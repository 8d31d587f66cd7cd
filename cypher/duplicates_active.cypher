// Records in exactly this scope with the same dedup key that are active at $now,
// whoever asks (SPEC section 6: a duplicate of an active record in the same scope).
MATCH (s:Scope {key: $scope_key})<-[:IN_SCOPE]-(r:Record {dedup_key: $dedup_key})
WHERE NOT r.quarantined AND NOT r.pending_recompute AND NOT r.erased AND NOT r.retracted
  AND (r.valid_from IS NULL OR r.valid_from <= $now)
  AND (r.expires_at IS NULL OR $now < r.expires_at)
  AND NOT EXISTS {
    MATCH (r)<-[:SUPERSEDES]-(succ:Record)
    WHERE NOT succ.quarantined AND NOT succ.erased AND NOT succ.pending_recompute
      AND (succ.valid_from IS NULL OR succ.valid_from <= $now)
  }
RETURN r.id AS id
