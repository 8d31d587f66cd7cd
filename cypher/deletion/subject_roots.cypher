// Deletion roots for a subject (docs/spec/deletion.md): every Record and Intention whose scope
// holds all of the subject's [key, value] pairs. $tenant: the subject's tenant; $subject_pairs: the
// subject as JSON-encoded [key, value] strings (the same encoding as Scope.pairs).
{{subject_scopes}}
MATCH (s)<-[:IN_SCOPE]-(n)
WHERE n:Record OR n:Intention
RETURN n.id AS id,
  CASE WHEN n:Record THEN 'record' ELSE 'intention' END AS node,
  n.kind AS kind, n.tenant AS tenant, coalesce(n.erased, false) AS erased
ORDER BY id
