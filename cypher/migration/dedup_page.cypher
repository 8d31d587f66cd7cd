// One page of records with content (erased tombstones have none), in id order after $after:
// what the dedup-key migration recomputes in Python (graphmem.db.migrations).
MATCH (r:Record)
WHERE r.id > $after AND r.content IS NOT NULL
RETURN r.id AS id, r.kind AS kind, r.content AS content, r.dedup_key AS dedup_key
ORDER BY r.id
LIMIT $limit
