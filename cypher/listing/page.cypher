// One page of the records a caller may reach, newest first, with each record's status for the
// caller (docs/ui.md; docs/spec/eligibility.md): the Scopes the query scope sees (rules 1 and
// 3, as candidates.cypher) and the clearance, then the cheap filters on the record's own
// properties (kind, authority, creation time, and the keyset: records strictly older than the
// cursor ($cursor_at, $cursor_id) in (created_at, id) order), with a status filter the status
// the record's own properties give (parts/record_status with no successor) among $own_statuses
// (the filter's status, and ACTIVE for SUPERSEDED: a successor may make it so), then the sort,
// and only then, row by row until $limit rows pass, the status (parts/record_status with the
// successors the caller may see, as explain.cypher) and the status filter: a page costs a sort
// of the reachable records' keys plus the status of the rows it reaches. Returns only what the
// list shows. $tenant, $tenants, $pairs, $clearance, $now as for candidates.cypher; $kind,
// $authority, $status: a value or null (any); $own_statuses: as above, null with $status;
// $after, $before: creation time bounds (>= $after, < $before) or null; $cursor_at, $cursor_id:
// the last row of the previous page, or null; $limit: rows wanted; $preview: characters of
// content returned.
{{visible_scopes}}
WITH collect(s) AS scopes
UNWIND scopes AS s
MATCH (s)<-[:IN_SCOPE]-(r:Record)
WHERE r.sensitivity_rank <= $clearance
  AND ($kind IS NULL OR r.kind = $kind)
  AND ($authority IS NULL OR r.authority = $authority)
  AND ($after IS NULL OR r.created_at >= $after)
  AND ($before IS NULL OR r.created_at < $before)
  AND ($cursor_at IS NULL OR r.created_at < $cursor_at
       OR (r.created_at = $cursor_at AND r.id < $cursor_id))
WITH r, $now AS now, [] AS successors
WHERE $status IS NULL OR {{record_status}} IN $own_statuses
WITH r ORDER BY r.created_at DESC, r.id DESC
WITH r, $tenant AS q_tenant, $pairs AS q_pairs, $now AS now
WITH r, now,
  [(r)<-[:SUPERSEDES]-(succ:Record)-[:IN_SCOPE]->(ss:Scope) WHERE {{successor_visible}}
     | succ.id] AS successors
WITH r, {{record_status}} AS status
WHERE $status IS NULL OR status = $status
LIMIT $limit
RETURN r.id AS id, r.kind AS kind, r.authority AS authority, r.created_at AS created_at,
       r.sensitivity AS sensitivity, r.scope_json AS scope_json, status,
       left(r.content, $preview) AS preview
