// The records of a lineage graph ($ids) with the properties analysts see, their status at
// $now whoever asks (parts/record_status; docs/status.md: SUPERSEDED by any effective
// successor, parts/successor_effective) and their outgoing lineage edges.
UNWIND $ids AS id
MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
WITH r, $now AS now
WITH r, now, [(r)<-[:SUPERSEDES]-(succ:Record) WHERE {{successor_effective}} | succ.id]
  AS successors
RETURN r {.id, .kind, .authority, .created_at, .scope_json, .tenant, .sensitivity, .source,
          .content, .valid_from, .expires_at, .retracted, .quarantined, .pending_recompute,
          .erased, .erased_at, .erased_by_request} AS props,
  {{record_status}} AS status,
  [(r)-[e:DERIVED_FROM|SUPERSEDES|EVIDENCED_BY]->(t:Record) | [type(e), t.id]] AS edges
