// LangGraph store: create the Scope of each namespace a batch writes into, stamped on
// creation with the sequence number that orders namespaces (insertion order, as in
// LangGraph's InMemoryStore). An existing Scope keeps its number.
// $scopes: [{key, tenant, pairs, seq}].
UNWIND $scopes AS row
MERGE (s:Scope {key: row.key})
  ON CREATE SET s.tenant = row.tenant, s.pairs = row.pairs, s.epoch = randomUUID(),
                s.langgraph_seq = row.seq
RETURN count(s) AS scopes
