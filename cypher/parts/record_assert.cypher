// Part of queries, not a query: `{{record_assert}}` links a stored record `r` to its
// Assertion group `a` (none when `a` is null), after {{record_store}}. Apart from it so that a
// batch of writes (write/new_batch.cypher) links its records in the order of their groups:
// the relationship locks the group node, and every transaction then locks groups last and in
// order, so none waits on another in a cycle.
CALL (r, a) {
  WITH r, a WHERE a IS NOT NULL
  CREATE (r)-[:ASSERTS]->(a)
}
