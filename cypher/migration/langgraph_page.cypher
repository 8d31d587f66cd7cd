// One page of the records of LangGraph namespaces (Scopes the store stamped with a
// langgraph_seq) that have no search order (r.lg_order), in id order after $after: items
// the store wrote before it kept its order, facts and key chain as properties, which the
// migration computes in Python (graphmem.db.langgraph_shape) from their metadata; an item
// that expires was put with a TTL of its expiry less its creation (ttl_seconds, else null).
MATCH (r:Record)
WHERE r.id > $after AND r.lg_order IS NULL
MATCH (r)-[:IN_SCOPE]->(s:Scope)
WHERE s.langgraph_seq IS NOT NULL
WITH r, s, duration.inSeconds(r.created_at, r.expires_at) AS ttl
RETURN r.id AS id, r.metadata_json AS metadata_json, s.key AS scope_key,
       ttl.seconds + ttl.nanosecondsOfSecond / 1000000000.0 AS ttl_seconds
ORDER BY r.id
LIMIT $limit
