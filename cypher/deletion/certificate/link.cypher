// Make a new certificate the head of its tenants' chains and keep it on its request: the
// certificate as issued ($certificate: JSON) and its digest. $tenants: chain keys
// (graphmem.deletion.certificate.chain_keys).
MATCH (req:DeletionRequest {id: $id})
USING INDEX SEEK req:DeletionRequest(id)
SET req.certificate_json = $certificate, req.certificate_digest = $digest
WITH req
UNWIND $tenants AS tenant
MATCH (c:ErasureChain {tenant: tenant})
USING INDEX SEEK c:ErasureChain(tenant)
SET c.head = $digest, c.length = c.length + 1
RETURN count(c) AS linked
