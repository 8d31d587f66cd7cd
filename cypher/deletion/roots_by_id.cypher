// Resolve explicitly named deletion roots ($ids) to Record or Intention nodes; ids that name
// neither come back with node = null.
UNWIND $ids AS id
OPTIONAL MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
OPTIONAL MATCH (i:Intention {id: id})
USING INDEX SEEK i:Intention(id)
WITH id, coalesce(r, i) AS n, r IS NOT NULL AS is_record
RETURN id,
  CASE WHEN n IS NULL THEN null WHEN is_record THEN 'record' ELSE 'intention' END AS node,
  n.kind AS kind, n.tenant AS tenant, coalesce(n.erased, false) AS erased
