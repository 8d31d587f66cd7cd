// Every descendant of the deletion roots over DERIVED_FROM (SPEC section 7), in one walk.
// Each root is found through the record_id uniqueness constraint (USING INDEX), and the
// expansion sits under a distinct horizon (min(length(p)) grouped by d) with no relationship
// used downstream, so Neo4j plans VarLengthExpand(Pruning,BFS): every node is visited once
// per root, linear in the number of descendants even through chained diamonds.
// $roots: record ids; $terms: lower-cased redaction terms (may be empty).
// Returns one row per descendant: its minimum depth below a root, its parents' ids (and which
// of them an earlier request erased) and the terms its content, asserted value, provenance or
// metadata hold.
UNWIND $roots AS root_id
MATCH (root:Record {id: root_id})
USING INDEX root:Record(id)
MATCH p = (root)<-[:DERIVED_FROM*]-(d:Record)
WITH d, min(length(p)) AS depth
WITH d, depth,
  CASE WHEN size($terms) = 0 THEN ''
    ELSE toLower(coalesce(d.content, '') + '\n' + coalesce(d.asserted_value, '') + '\n' +
                 coalesce(d.provenance_json, '') + '\n' + coalesce(d.metadata_json, ''))
  END AS text
RETURN d.id AS id, d.kind AS kind, d.tenant AS tenant, depth,
  coalesce(d.erased, false) AS erased,
  COLLECT { MATCH (d)-[e:DERIVED_FROM]->(parent:Record)
            RETURN parent.id ORDER BY e.ord, parent.id } AS parents,
  [(d)-[:DERIVED_FROM]->(parent:Record) WHERE coalesce(parent.erased, false) | parent.id]
    AS erased_parents,
  [t IN $terms WHERE text CONTAINS t] AS terms
