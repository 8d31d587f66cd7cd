// Part of queries, not a query: `{{record_status}}` is the status of record `r` at `now`
// whoever asks (docs/status.md; docs/spec/eligibility.md, rule 4 and 4): the first that applies, in
// the order graphmem.models.Status declares them in (tests/unit/db/test_stats.py checks
// that the two match). An erased record is ERASED whatever flags it kept: its content is
// gone, and no other status may say it is held. The query binds `successors`: the ids of the
// successors that supersede `r` at `now` as the query sees them (parts/successor_effective,
// and the caller's visibility when there is a caller). Authorization and scope, which depend
// on the caller, come before this in the query that has a caller (explain.cypher). `now` is a
// variable the query binds (`$now AS now`), as for parts/record_live.
CASE
  WHEN r.erased THEN 'ERASED'
  WHEN r.quarantined THEN 'QUARANTINED'
  WHEN r.pending_recompute THEN 'PENDING_RECOMPUTE'
  WHEN r.retracted THEN 'RETRACTED'
  WHEN now < r.created_at OR (r.valid_from IS NOT NULL AND now < r.valid_from)
    THEN 'NOT_YET_VALID'
  WHEN r.expires_at IS NOT NULL AND now >= r.expires_at THEN 'EXPIRED'
  WHEN size(successors) > 0 THEN 'SUPERSEDED'
  ELSE 'ACTIVE'
END
