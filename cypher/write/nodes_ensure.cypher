// Create, in a short transaction of its own before a write, the nodes a write
// transaction then only MATCHes: the Scope, its ScopeVersion (version and rev), its
// $slots WriteSlot lock nodes, and the Assertion groups of $groups ({gkey, tenant, key}).
// MERGE of an existing node takes a shared lock; a write transaction that later writes the
// node must upgrade it, and two writers holding the shared lock deadlock. Here nothing is
// written to an existing node, and the locks go at this transaction's commit.
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
MERGE (s:Scope {key: $key})
  ON CREATE SET s.tenant = $tenant, s.pairs = $pairs, s.epoch = randomUUID()
MERGE (sv:ScopeVersion {key: $key})
  ON CREATE SET sv.epoch = randomUUID(), sv.tenant = $tenant
WITH s
CALL () {
  UNWIND range(0, $slots - 1) AS i
  MERGE (l:WriteSlot {key: $key + '#' + toString(i)})
    ON CREATE SET l.tenant = $tenant, l.epoch = randomUUID()
}
CALL () {
  UNWIND $groups AS g
  MERGE (a:Assertion {gkey: g.gkey})
    ON CREATE SET a.tenant = g.tenant, a.key = g.key
}
RETURN count(s) AS ensured
