// LangGraph store: create the Scope of each namespace a batch writes into, stamped on
// creation with the sequence number that orders namespaces (insertion order, as in
// LangGraph's InMemoryStore) and with the digest its items' r.lg_order starts with
// (langgraph/search). An existing Scope keeps its number; one made before the digest existed
// gets it here, once.
// $scopes: [{key, tenant, pairs, seq, langgraph_key}].
UNWIND $scopes AS row
MERGE (s:Scope {key: row.key})
  ON CREATE SET s.tenant = row.tenant, s.pairs = row.pairs, s.epoch = randomUUID(),
                s.langgraph_seq = row.seq, s.langgraph_key = row.langgraph_key
FOREACH (_ IN CASE WHEN s.langgraph_key IS NULL THEN [1] ELSE [] END |
  SET s.langgraph_key = row.langgraph_key)
RETURN count(s) AS scopes
