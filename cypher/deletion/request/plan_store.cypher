// Keep a reviewed deletion plan in the graph until it is applied (SPEC section 7): a
// DeletionRequest in state 'planned' with its digest, its plan (redaction terms only as
// digests), who made it and when it expires. deletion/request/begin.cypher takes the same
// node over when the plan is applied. $props: flat properties, the request id as `id`.
CREATE (req:DeletionRequest $props)
RETURN req.id AS id
