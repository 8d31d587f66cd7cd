// Thread positions already held by a stored record (one record per position).
// $slots: [{tenant, thread, thread_key, position}] (thread_key: graphmem.db.codec.thread_key,
// the digest the thread index holds instead of the thread's name).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
UNWIND $slots AS slot
MATCH (r:Record {thread_key: slot.thread_key, position: slot.position})
USING INDEX SEEK r:Record(thread_key, position)
WHERE r.tenant = slot.tenant AND r.thread = slot.thread
RETURN slot.thread AS thread, slot.position AS position
