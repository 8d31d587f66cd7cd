// Create missing WriteSlot lock nodes inside a write transaction (they were deleted since
// this client created them with write/nodes_ensure.cypher). $keys: slot keys; $tenant.
UNWIND $keys AS key
MERGE (l:WriteSlot {key: key})
  ON CREATE SET l.tenant = $tenant, l.epoch = randomUUID()
RETURN count(l) AS slots
