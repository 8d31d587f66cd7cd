// Keep on the deletion request what its apply did to the server's files and what stays out of
// graphmem's reach ($disk: JSON), for its certificate.
MATCH (req:DeletionRequest {id: $id})
USING INDEX SEEK req:DeletionRequest(id)
SET req.disk_json = $disk
RETURN req.id AS id
