// The storage of one policy write, the statement after write/check.cypher in its
// transaction: {{record_store}}, {{record_assert}}. No row comes back when the Scope or the slot is missing
// (nothing is created: the caller creates them and runs this again); `grouped` is false
// when w.gkey names a missing Assertion (the caller links it with assertions_link.cypher).
// Same effects as records/create, edges/* and write/decision_log. $write: the write, as
// parts/record_store reads it from `w` (write/check's map).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
WITH $write AS w
{{record_store}}
{{record_assert}}
RETURN r.id AS id, a IS NOT NULL AS grouped
