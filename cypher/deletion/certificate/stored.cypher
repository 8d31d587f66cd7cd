// The certificate a deletion request was issued (JSON and digest, null before one is) and
// what its apply recorded about the server's files; no row for an unknown request.
MATCH (req:DeletionRequest {id: $id})
USING INDEX SEEK req:DeletionRequest(id)
RETURN req.certificate_json AS certificate, req.certificate_digest AS digest,
       req.disk_json AS disk, req.tenants AS tenants
