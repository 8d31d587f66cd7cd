// Keep a reviewed deletion plan in the graph until it is applied (docs/spec/deletion.md): a
// DeletionRequest in state 'planned' with its digest, its plan as JSON (redaction terms only
// as digests), who made it ($owner), until when it may be applied ($expires_at) and its
// reach ($reach_json: a confined principal's, whose redaction scans it; null: the tenants').
// deletion/request/begin.cypher takes the same node over when the plan is applied.
CREATE (req:DeletionRequest {
  id: $id, state: 'planned', version: $version, digest: $digest,
  requested_by: $requested_by, reason: $reason, tenants: $tenants,
  redact_term_count: $redact_term_count, planned_at: $planned_at,
  plan_owner: $owner, plan_expires_at: $expires_at, plan_json: $plan_json,
  reach_json: $reach_json
})
RETURN req.id AS id
