// Before recomputing $id: its state, and which proposed parents ($parents) exist, are erased,
// or descend from it (a DERIVED_FROM edge to those would close a cycle). The descendant test
// is a pruning BFS walk like deletion/walk.cypher.
MATCH (r:Record {id: $id})
USING INDEX SEEK r:Record(id)
RETURN r {.*} AS record,
  [pid IN $parents WHERE NOT EXISTS { MATCH (:Record {id: pid}) }] AS missing,
  [pid IN $parents WHERE EXISTS { MATCH (x:Record {id: pid}) WHERE coalesce(x.erased, false) }]
    AS erased,
  COLLECT { MATCH (r)<-[:DERIVED_FROM*]-(d:Record) WHERE d.id IN $parents
            RETURN DISTINCT d.id } AS descendants
