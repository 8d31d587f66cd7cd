// Records and intentions of $tenants that are not erased and hold a redaction term in their
// content, asserted value, provenance or metadata (intentions: their action). $terms are
// lower-cased; matching is case-insensitive. A full scan of the tenants' records: planning only.
CALL () {
  MATCH (r:Record)
  WHERE r.tenant IN $tenants AND NOT coalesce(r.erased, false)
  WITH r, toLower(normalize(coalesce(r.content, '') + '\n' + coalesce(r.asserted_value, '') + '\n' +
                  coalesce(r.provenance_json, '') + '\n' + coalesce(r.metadata_json, ''))) AS text
  WITH r, [t IN $terms WHERE text CONTAINS t] AS found
  WHERE size(found) > 0
  RETURN r.id AS id, 'record' AS node, r.kind AS kind, r.tenant AS tenant, found AS terms
  UNION ALL
  MATCH (i:Intention)
  WHERE i.tenant IN $tenants AND NOT coalesce(i.erased, false)
  WITH i, [t IN $terms WHERE toLower(normalize(coalesce(i.action, ''))) CONTAINS t] AS found
  WHERE size(found) > 0
  RETURN i.id AS id, 'intention' AS node, null AS kind, i.tenant AS tenant, found AS terms
}
RETURN id, node, kind, tenant, terms
ORDER BY id
