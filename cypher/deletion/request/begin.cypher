// Create the DeletionRequest node when an apply starts (SPEC section 7), or find the one a
// crashed apply left. $props: flat request properties (state 'applying', digest, counts ...).
// The returned digest tells the caller whether the stored request is this very plan.
MERGE (req:DeletionRequest {id: $id})
  ON CREATE SET req += $props
RETURN req.digest AS digest, req.state AS state
