// Write-lock the certificate chain of each of a request's tenants (made on first use) and
// read its head: the digest of the tenant's latest erasure certificate, and how many it has.
// Issuing runs one tenant's certificates one at a time, so each links to the one before.
UNWIND $tenants AS tenant
MERGE (c:ErasureChain {tenant: tenant})
  ON CREATE SET c.length = 0
SET c.locked_at = $at
RETURN c.tenant AS tenant, c.head AS head, c.length AS length
