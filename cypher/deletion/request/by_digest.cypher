// The deletion request whose plan has this digest (a planned or applied one), or no row.
MATCH (req:DeletionRequest {digest: $digest})
USING INDEX SEEK req:DeletionRequest(digest)
RETURN req {.*} AS request
