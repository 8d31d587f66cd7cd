// One deletion request's stored properties (state, digest, counts), or no row.
MATCH (req:DeletionRequest {id: $id})
RETURN req {.*} AS request
