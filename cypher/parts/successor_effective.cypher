// Part of queries, not a query: `{{successor_effective}}` stands for this condition on a successor
// `succ` (docs/spec/status.md#superseded): it was admitted (never quarantined; a tombstone keeps
// `admitted`) and is effective at `now` (created and valid by then), whatever happened to it since
// (retraction, expiry, supersession, pending recompute, erasure). Whether the caller may see it
// (tenant, scope, sensitivity) is the query's. `now` is a variable the query binds: `$now AS now`
// in a read, the write's own instant in a policy write (parts/write_probe, one per row of a batch).
NOT succ.quarantined AND (NOT succ.erased OR coalesce(succ.admitted, false))
AND succ.created_at <= now
AND (succ.valid_from IS NULL OR succ.valid_from <= now)
