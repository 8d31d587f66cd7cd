// Logged retrievals of $tenants whose query text holds a lower-cased redaction term ($terms);
// one row with a list. (Retrievals that selected a walked record come from the walk itself.)
MATCH (q:Retrieval)
WHERE q.tenant IN $tenants
  AND any(t IN $terms WHERE toLower(normalize(coalesce(q.query, ''))) CONTAINS t)
RETURN collect(q.id) AS ids
