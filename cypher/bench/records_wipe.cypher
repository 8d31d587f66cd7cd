// Benchmarks only (bench/deletion_walk.py): delete up to $limit records of tenant $tenant.
// Records go first, in batches, so no single transaction detaches the tenant's dense Scope
// node from a million records; wipe_batch.cypher removes what is left.
CALL () {
  MATCH (s:Scope {tenant: $tenant})
  USING INDEX SEEK s:Scope(tenant)
  MERGE (sv:ScopeVersion {key: s.key})
    ON CREATE SET sv.epoch = randomUUID(), sv.tenant = s.tenant
  SET sv.rev = coalesce(sv.rev, 0) + 1, sv.epoch = randomUUID()  // records vanish: no delta
}
MATCH (r:Record)
WHERE r.tenant = $tenant
WITH r LIMIT $limit
DETACH DELETE r
RETURN count(*) AS deleted
