// The records of a lineage graph ($ids) with the properties analysts see, their effective
// successors at $now (for SUPERSEDED; SPEC section 4 rule 4 as in candidates.cypher) and
// their outgoing lineage edges.
UNWIND $ids AS id
MATCH (r:Record {id: id})
RETURN r {.id, .kind, .authority, .created_at, .scope_json, .tenant, .sensitivity, .source,
          .content, .valid_from, .expires_at, .retracted, .quarantined, .pending_recompute,
          .erased, .erased_at, .erased_by_request} AS props,
  [(r)<-[:SUPERSEDES]-(s:Record)
     WHERE NOT coalesce(s.quarantined, false)
       AND (NOT coalesce(s.erased, false) OR coalesce(s.admitted, false))
       AND s.created_at <= $now
       AND (s.valid_from IS NULL OR s.valid_from <= $now) | s.id] AS successors,
  [(r)-[e:DERIVED_FROM|SUPERSEDES|EVIDENCED_BY]->(t:Record) | [type(e), t.id]] AS edges
