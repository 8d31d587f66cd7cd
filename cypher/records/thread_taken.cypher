// Thread positions already held by a stored record (issue 16: one record per position).
// $slots: [{tenant, thread, position}].
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
UNWIND $slots AS slot
MATCH (r:Record {tenant: slot.tenant, thread: slot.thread, position: slot.position})
USING INDEX SEEK r:Record(tenant, thread, position)
RETURN r.id AS id, slot.thread AS thread, slot.position AS position
