// A policy write of a new record in one statement (issue 15: the agent loop's write, in one
// round trip and one commit): {{write_probe}}, then, only when {{write_fresh}} finds the
// proposal can be stored as the client decided, {{record_store}} and {{record_assert}}.
// Returns the stored id, or no row when nothing was written: the client then runs the
// two-statement write (write_check.cypher, record_write.cypher), which decides every other
// case. write_new_batch.cypher runs the same parts for many writes in one statement.
// Parameters: those of write_check (without $evidence_ids' rows) and record_write.
{{write_probe}}
{{write_fresh}}
{{record_store}}
{{record_assert}}
RETURN r.id AS id
