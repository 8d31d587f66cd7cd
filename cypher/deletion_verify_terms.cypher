// Where redaction terms ($terms, lower-cased) still occur in $tenants: eligible-state records
// (not erased, quarantined or pending recompute) that hold one are retrievable erased
// content; other stored records, intentions and retrieval query texts are listed too.
CALL () {
  MATCH (r:Record)
  WHERE r.tenant IN $tenants AND NOT coalesce(r.erased, false)
  WITH r, toLower(coalesce(r.content, '') + '\n' + coalesce(r.asserted_value, '') + '\n' +
                  coalesce(r.provenance_json, '') + '\n' + coalesce(r.metadata_json, '')) AS text
  WHERE any(t IN $terms WHERE text CONTAINS t)
  RETURN r.id AS id,
    CASE WHEN coalesce(r.quarantined, false) OR coalesce(r.pending_recompute, false)
      THEN 'stored' ELSE 'retrievable' END AS place
  UNION ALL
  MATCH (i:Intention)
  WHERE i.tenant IN $tenants AND NOT coalesce(i.erased, false)
    AND any(t IN $terms WHERE toLower(coalesce(i.action, '')) CONTAINS t)
  RETURN i.id AS id, 'intention' AS place
  UNION ALL
  MATCH (q:Retrieval)
  WHERE q.tenant IN $tenants AND any(t IN $terms WHERE toLower(coalesce(q.query, '')) CONTAINS t)
  RETURN q.id AS id, 'retrieval' AS place
}
RETURN place, collect(id) AS ids
