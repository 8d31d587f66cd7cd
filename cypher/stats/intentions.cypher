// Deferred intentions by tenant and status (pending, fired, cancelled); erased ones (their
// tombstones, status cancelled) are counted apart. $tenant: one tenant, or null for all.
MATCH (i:Intention)
WHERE $tenant IS NULL OR i.tenant = $tenant
RETURN i.tenant AS tenant,
       CASE WHEN coalesce(i.erased, false) THEN 'erased' ELSE i.status END AS status,
       count(*) AS n
ORDER BY tenant, status
