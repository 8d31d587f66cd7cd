// Create the DeletionRequest node when an apply starts (docs/spec/deletion.md), find the one a
// crashed apply left, or take over the one plan_store.cypher left for this very plan (state
// 'planned', same digest: it becomes 'applying'). $props: flat request properties (state
// 'applying', digest, counts ...). The returned digest tells the caller whether the stored
// request is this very plan.
MERGE (req:DeletionRequest {id: $id})
  ON CREATE SET req += $props
  ON MATCH SET req += CASE WHEN req.state = 'planned' AND req.digest = $props.digest
                           THEN $props ELSE {} END
RETURN req.digest AS digest, req.state AS state
