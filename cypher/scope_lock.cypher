// Write-lock the scope of a record about to be written, so that concurrent identical writes
// into one scope are serialised (duplicate check, SPEC section 6). The lock is taken on the
// scope's small ScopeVersion node, never on the Scope node itself: the Scope node is dense
// (an IN_SCOPE edge per record), and a property write on a dense node takes a shared lock on
// its relationship groups that another writer's IN_SCOPE edge then waits on (a deadlock).
// Every writer takes this lock first, so writers into one scope queue instead of deadlocking.
MERGE (s:Scope {key: $scope_key})
  ON CREATE SET s.tenant = $tenant, s.pairs = $scope_pairs, s.epoch = randomUUID()
MERGE (sv:ScopeVersion {key: $scope_key})
  ON CREATE SET sv.epoch = randomUUID(), sv.tenant = $tenant
SET sv.write_seq = coalesce(sv.write_seq, 0) + 1
RETURN sv.write_seq AS seq
