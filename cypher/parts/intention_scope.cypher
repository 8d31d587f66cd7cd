// Part of queries, not a query: `{{intention_scope}}` finds or makes `s`, the Scope node an
// intention of $scope_key is stored in (the same Scope nodes, keys and pairs as records, made
// with their tenant, pairs and epoch). Used by intentions/create and intentions/lock_scope, so
// that the lock is taken on the node the intention is then stored in.
MERGE (s:Scope {key: $scope_key})
  ON CREATE SET s.tenant = $tenant, s.pairs = $scope_pairs, s.epoch = randomUUID()
