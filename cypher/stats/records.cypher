// Records by tenant, kind and status at $now (parts/record_status; docs/status.md), without
// a caller (no authorization or scope step), so every record counts once. A record is
// SUPERSEDED when any successor was admitted and is effective at $now
// (parts/successor_effective), whatever its scope.
// $tenant: one tenant, or null for every tenant.
MATCH (r:Record)
WHERE $tenant IS NULL OR r.tenant = $tenant
WITH r, $now AS now
WITH r, now, [(r)<-[:SUPERSEDES]-(succ:Record) WHERE {{successor_effective}} | succ.id]
  AS successors
WITH r, {{record_status}} AS status
RETURN r.tenant AS tenant, r.kind AS kind, status, count(*) AS n
ORDER BY tenant, kind, status
