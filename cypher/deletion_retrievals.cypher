// Logged retrievals touched by a deletion: those that selected a deleted record ($ids), and
// those of $tenants whose query text holds a lower-cased redaction term ($terms).
CALL () {
  UNWIND $ids AS id
  MATCH (:Record {id: id})<-[:SELECTED]-(q:Retrieval)
  RETURN q.id AS id, id AS selected, false AS holds_terms
  UNION ALL
  MATCH (q:Retrieval)
  WHERE size($terms) > 0 AND q.tenant IN $tenants
    AND any(t IN $terms WHERE toLower(coalesce(q.query, '')) CONTAINS t)
  RETURN q.id AS id, null AS selected, true AS holds_terms
}
WITH id, collect(DISTINCT selected) AS selected, collect(holds_terms) AS flags
WITH id, selected, any(f IN flags WHERE f) AS holds_terms
RETURN id, selected, holds_terms
ORDER BY id
