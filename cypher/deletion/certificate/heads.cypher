// Each tenant's certificate chain as it stands: head digest and length (no row for a tenant
// that has none). $tenants: chain keys (graphmem.deletion.certificate.chain_keys).
UNWIND $tenants AS tenant
MATCH (c:ErasureChain {tenant: tenant})
USING INDEX SEEK c:ErasureChain(tenant)
RETURN c.tenant AS tenant, c.head AS head, c.length AS length
