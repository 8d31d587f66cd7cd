// One page of records in a thread, in id order after $after: the thread keys the migration
// recomputes in Python (graphmem.db.codec.thread_key).
MATCH (r:Record)
WHERE r.id > $after AND r.thread IS NOT NULL
RETURN r.id AS id, r.tenant AS tenant, r.thread AS thread, r.thread_key AS thread_key
ORDER BY r.id
LIMIT $limit
