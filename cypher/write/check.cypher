// The first statement of a policy write: {{write_probe}} locks the write's slots
// and reads the stored ids and the active duplicates; $evidence_ids: records/get. The
// transaction then stores the record with records/write.cypher, or logs a DISCARD.
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
{{write_probe}}
CALL () {
  UNWIND $evidence_ids AS id
  MATCH (r:Record {id: id})
  USING INDEX SEEK r:Record(id)
  RETURN collect(r {.*}) AS evidence
}
RETURN locked, existing, duplicates, evidence
