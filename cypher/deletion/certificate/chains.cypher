// Write-lock the certificate chain of each of a request's tenants (made on first use) and
// read its head: the digest of the tenant's latest erasure certificate, and how many it has.
// Issuing runs one tenant's certificates one at a time, so each links to the one before.
// $tenants: chain keys (graphmem.deletion.certificate.chain_keys): a tenant, or a tenant and
// the reach of a confined principal's requests, which have a chain of their own.
UNWIND $tenants AS tenant
MERGE (c:ErasureChain {tenant: tenant})
  ON CREATE SET c.length = 0
SET c.locked_at = $at
RETURN c.tenant AS tenant, c.head AS head, c.length AS length
