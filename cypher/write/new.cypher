// A policy write of a new record in one statement (the agent loop's write, in one
// round trip and one commit): {{write_probe}}, then, only when {{write_fresh}} finds the
// proposal can be stored as the client decided, {{record_store}} and {{record_assert}}.
// Returns the stored id, or no row when nothing was written: the client then runs the
// two-statement write (write/check.cypher, records/write.cypher), which decides every other
// case. write/new_batch.cypher runs the same parts for many writes in one statement.
// $write: write/check's and records/write's $write map (without evidence_ids' rows), with
// `now` and `decision.at` as ISO-8601 text, read into `w` with them as datetimes (the driver packs a
// datetime in Python, at about 28 us each: graphmem.db.group_commit.write_new).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
WITH $write AS row, $write.decision AS d
WITH row {.*, now: datetime(row.now), decision: d {.*, at: datetime(d.at)}} AS w
{{write_probe}}
{{write_fresh}}
{{record_store}}
{{record_assert}}
RETURN r.id AS id
