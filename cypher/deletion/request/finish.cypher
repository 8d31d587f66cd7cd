// Close a deletion request once every batch is in: state 'applied', finish time (the
// caller's, and the server's clock now: the verification leaves out log nodes written after
// that, by the server's clock), and how many nodes it disposed of (one DISPOSED edge each).
MATCH (req:DeletionRequest {id: $id})
USING INDEX SEEK req:DeletionRequest(id)
SET req.state = 'applied', req.finished_at = $at, req.written_at = datetime.realtime(),
    req.disposed_count = COUNT { (req)-[:DISPOSED]->() }
RETURN req.disposed_count AS disposed
