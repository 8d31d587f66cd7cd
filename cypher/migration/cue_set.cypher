// Store recomputed cue digests ($rows: {id, cue_digest}); only rows whose digest changed are
// sent. An intention erased meanwhile (no cue any more) gets none.
UNWIND $rows AS row
MATCH (i:Intention {id: row.id})
USING INDEX SEEK i:Intention(id)
WHERE i.trigger_value IS NOT NULL
SET i.cue_digest = row.cue_digest
RETURN count(i) AS updated
