// Records in exactly this scope with the same dedup key that are active at $now,
// whoever asks (SPEC section 6: a duplicate of an active record in the same scope); status
// rules 2 and 4 as in candidates.cypher. $dedup_key: codec.dedup_key (one normalisation).
MATCH (s:Scope {key: $scope_key})<-[:IN_SCOPE]-(r:Record {dedup_key: $dedup_key})
WHERE NOT r.quarantined AND NOT r.pending_recompute AND NOT r.erased AND NOT r.retracted
  AND r.created_at <= $now
  AND (r.valid_from IS NULL OR r.valid_from <= $now)
  AND (r.expires_at IS NULL OR $now < r.expires_at)
  AND NOT EXISTS {
    MATCH (r)<-[:SUPERSEDES]-(succ:Record)
    WHERE NOT succ.quarantined AND (NOT succ.erased OR coalesce(succ.admitted, false))
      AND succ.created_at <= $now
      AND (succ.valid_from IS NULL OR succ.valid_from <= $now)
  }
RETURN r.id AS id
