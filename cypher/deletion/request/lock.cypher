// Write-lock the request at the start of each batch transaction, so two applies of one plan
// run one batch at a time and the DISPOSED guards below see each other's work.
MATCH (req:DeletionRequest {id: $id})
USING INDEX SEEK req:DeletionRequest(id)
SET req.batches_committed = coalesce(req.batches_committed, 0) + 1
RETURN req.state AS state, req.digest AS digest
