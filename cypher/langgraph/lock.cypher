// LangGraph store (graphmem.integrations.langgraph): write-lock each tenant's tenant-wide
// scope (on its ScopeVersion node, never the dense Scope node: see graphmem.db.slots) and reserve $rows[i].count sequence numbers from it, in one step. The lock
// serialises the store's writes in a tenant (so two puts of one key cannot both supersede
// the same version); the sequence orders namespaces and keys as LangGraph's InMemoryStore
// does (insertion order). Only the counter changes: no Record is written here.
// $rows: [{key, tenant, pairs, count}], sorted by key (a fixed lock order, no deadlocks).
UNWIND $rows AS row
MERGE (s:Scope {key: row.key})
  ON CREATE SET s.tenant = row.tenant, s.pairs = row.pairs, s.epoch = randomUUID()
MERGE (sv:ScopeVersion {key: row.key})
  ON CREATE SET sv.epoch = randomUUID(), sv.tenant = row.tenant
// lock, then read (graphmem.db.slots), as the rev bumps do
SET sv.locked = true
WITH row, sv, coalesce(sv.langgraph_seq, 0) AS base
SET sv.langgraph_seq = base + row.count
REMOVE sv.locked
RETURN row.tenant AS tenant, base
