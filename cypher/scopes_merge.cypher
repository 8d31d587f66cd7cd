// Create the Scope and ScopeVersion nodes a batch of records needs (one row per distinct
// scope). Inside a write transaction only when they are missing (first write of a scope by
// this client, or deleted since): write/nodes_ensure.cypher creates them ahead of the write
// transaction, where MERGE's shared lock on an existing node is released at once.
UNWIND $scopes AS s
MERGE (sc:Scope {key: s.key})
  ON CREATE SET sc.tenant = s.tenant, sc.pairs = s.pairs, sc.epoch = randomUUID()
MERGE (sv:ScopeVersion {key: s.key})
  ON CREATE SET sv.epoch = randomUUID(), sv.tenant = s.tenant
RETURN count(sc) AS scopes
