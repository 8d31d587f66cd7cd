// Deletion roots for a subject (docs/spec/deletion.md): every Record and Intention whose scope
// holds all of the subject's [key, value] pairs. $tenant: the subject's tenant; $subject_pairs: the
// subject as JSON-encoded [key, value] strings (the same encoding as Scope.pairs).
MATCH (s:Scope {tenant: $tenant})
USING INDEX SEEK s:Scope(tenant)
WHERE all(p IN $subject_pairs WHERE p IN s.pairs)
MATCH (s)<-[:IN_SCOPE]-(n)
WHERE n:Record OR n:Intention
RETURN n.id AS id,
  CASE WHEN n:Record THEN 'record' ELSE 'intention' END AS node,
  n.kind AS kind, n.tenant AS tenant, coalesce(n.erased, false) AS erased
ORDER BY id
