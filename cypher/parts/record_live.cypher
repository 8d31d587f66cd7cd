// Part of queries, not a query: `{{record_live}}` in a query stands for this condition on its
// record `r` at the instant `now`, a variable the query binds (`$now AS now`)
// (docs/spec/eligibility.md#admitted and docs/spec/status.md, rules 1-3: not quarantined,
// pending recompute, erased or retracted; created and valid by `now`; not expired).
// Whether a successor supersedes it is successor_effective; authorization and scope are the
// query's.
NOT r.quarantined AND NOT r.pending_recompute AND NOT r.erased AND NOT r.retracted
AND r.created_at <= now
AND (r.valid_from IS NULL OR r.valid_from <= now)
AND (r.expires_at IS NULL OR now < r.expires_at)
