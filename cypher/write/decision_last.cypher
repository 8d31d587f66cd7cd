// The latest write decision logged for a proposal id (docs/spec/write-path.md: every decision and
// its reason is kept): explain answers with it for a proposal the policy discarded (no record), and
// names the reason of a quarantine. $id: the proposal's id. pairs and rank: the proposal's
// scope pairs and sensitivity rank (null on decisions logged before they were kept).
MATCH (w:WriteDecision {record_id: $id})
USING INDEX SEEK w:WriteDecision(record_id)
RETURN w.tenant AS tenant, w.disposition AS disposition, w.reason AS reason, w.by AS by,
       w.at AS at, w.pairs AS pairs, w.sensitivity_rank AS rank
ORDER BY w.at DESC, w.disposition
LIMIT 1
