// Deletion requests by state (applying, applied); with $tenant, those whose plan reached
// that tenant. $tenant: one tenant, or null for all.
MATCH (req:DeletionRequest)
WHERE $tenant IS NULL OR $tenant IN coalesce(req.tenants, [])
RETURN req.state AS state, count(*) AS n
ORDER BY state
