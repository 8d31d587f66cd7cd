// Create (if needed) and write-lock the Scope node of a record about to be written, so that
// concurrent identical writes into one scope are serialised (duplicate check, SPEC section 6).
MERGE (s:Scope {key: $scope_key})
  ON CREATE SET s.tenant = $tenant, s.pairs = $scope_pairs, s.epoch = randomUUID()
SET s.write_seq = coalesce(s.write_seq, 0) + 1
RETURN s.write_seq AS seq
