// The first statement of a policy write: {{write_probe}} locks the write's slots
// and reads the stored ids and the active duplicates; w.evidence_ids: records/get. $write: the
// write, as parts/write_probe reads it from `w` (graphmem.write.admission). The
// transaction then stores the record with records/write.cypher, or logs a DISCARD.
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
WITH $write AS w
{{write_probe}}
CALL (w) {
  UNWIND w.evidence_ids AS id
  MATCH (r:Record {id: id})
  USING INDEX SEEK r:Record(id)
  RETURN collect(r {.*}) AS evidence
}
RETURN locked, existing, duplicates, evidence
