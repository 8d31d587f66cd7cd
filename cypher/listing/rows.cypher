// The listed rows of some records, by id, for a caller at $now (docs/ui.md): each record that
// is within the caller's reach (its Scope visible to the query scope and its sensitivity within
// $clearance, as listing/page.cypher; the ids come from listing/keys.cypher, and are
// checked again here), with its status for the caller (parts/record_status with the successors
// the caller may see, as explain.cypher), kept when it is $status (null: any). Returns only what
// the list shows, in no particular order (the caller orders by its keys).
// $ids: record ids; $tenant, $tenants, $pairs, $clearance, $now as for candidates.cypher;
// $status: a status or null; $preview: characters of content returned.
UNWIND $ids AS id
MATCH (r:Record {id: id})-[:IN_SCOPE]->(s:Scope)
USING INDEX SEEK r:Record(id)
WHERE $tenant IN $tenants AND s.tenant = $tenant AND all(p IN s.pairs WHERE p IN $pairs)
  AND r.sensitivity_rank <= $clearance
WITH r, $tenant AS q_tenant, $pairs AS q_pairs, $now AS now
WITH r, now,
  [(r)<-[:SUPERSEDES]-(succ:Record)-[:IN_SCOPE]->(ss:Scope) WHERE {{successor_visible}}
     | succ.id] AS successors
WITH r, {{record_status}} AS status
WHERE $status IS NULL OR status = $status
RETURN r.id AS id, r.kind AS kind, r.authority AS authority, r.created_at AS created_at,
       r.sensitivity AS sensitivity, r.scope_json AS scope_json, status,
       left(r.content, $preview) AS preview
