// Create an intention in its Scope node (the same Scope nodes, keys and pairs as records), so
// that eligibility and deletion by subject scope reach intentions the way they reach records.
MERGE (s:Scope {key: $scope_key})
  ON CREATE SET s.tenant = $tenant, s.pairs = $scope_pairs, s.epoch = randomUUID()
CREATE (i:Intention)
SET i = $props
CREATE (i)-[:IN_SCOPE]->(s)
RETURN i.id AS id
