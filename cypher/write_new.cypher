// A policy write of a new record in one statement (issue 15: the agent loop's write, in one
// round trip and one commit): {{write_probe}}, then, only when the proposal's id is not
// stored, every id it references is stored and not erased, no active duplicate exists, its
// slots and Assertion group exist, {{record_store}} with the decision the client made for a
// proposal without duplicates (graphmem.write.admission). Returns the stored id, or no row
// when nothing was written: the client then runs the two-statement write
// (write_check.cypher, record_write.cypher), which decides every other case.
// Parameters: those of write_check (without $evidence_ids' rows) and record_write.
{{write_probe}}
WITH locked, existing, duplicates
WHERE locked = size($slots) AND size(duplicates) = 0
  AND none(e IN existing WHERE e.id = $row.props.id)
  AND size([e IN existing WHERE NOT coalesce(e.erased, false)]) = size($ids) - 1
  AND ($gkey IS NULL OR EXISTS { MATCH (:Assertion {gkey: $gkey}) })
{{record_store}}
RETURN r.id AS id
