// One deletion request's stored properties (state, digest, counts), or no row.
MATCH (req:DeletionRequest {id: $id})
USING INDEX SEEK req:DeletionRequest(id)
RETURN req {.*} AS request
