// Every descendant of the deletion roots over DERIVED_FROM (docs/spec/deletion.md), in one walk.
// Each root is found through the record_id uniqueness constraint (USING INDEX SEEK), and the
// expansion sits under a distinct horizon (min(length(p)) grouped by d) with no relationship
// used downstream, so Neo4j plans VarLengthExpand(Pruning,BFS): every node is visited once
// per root, linear in the number of descendants even through chained diamonds.
// $roots: record ids; $pattern: null (no redaction terms), or the regular expression that
// narrows the descendants that may hold a term (graphmem.deletion.redaction.narrowing).
// Returns ONE row of parallel lists, because one row decodes far faster in the driver than a
// row per descendant:
// - per descendant: id, kind, erased flag, minimum depth below a root, parent ids: its
//   `derived_from`, which every write keeps equal to its DERIVED_FROM edges to stored records
//   (reading the parents' own ids instead was the walk's largest part: docs/performance.md),
//   or for a tombstone, which keeps its edges but not the property, the edges' ends (a
//   parent id that names no stored record is dropped by the caller:
//   graphmem.deletion.plan.walk);
// - the descendants that may hold a term in content, asserted value, provenance, metadata,
//   asserted key or thread, with those texts (the client's matcher decides; only with
//   $pattern: without one the descendants' nodes are not collected at all, as nothing
//   reads them);
// - per EVIDENCED_BY or SELECTED edge into a root or descendant: the record, the citing
//   record or selecting retrieval, the edge type, and the citer's kind ('' for a retrieval:
//   collect() drops nulls, which would misalign the lists) and erased flag. Only the
//   descendants that have such an edge are expanded again (cited_ds: collect() drops the
//   others' nulls).
// The four properties each descendant gives are read by one map projection (m), in one pass
// over its property chain: read one by one, `derived_from` took a second pass of its own
// (10^6 descendants: 4.7-4.9 s of server time against 4.8-5.2 s; docs/performance.md).
// The caller keeps the citations and selections of the records it decides to delete.
UNWIND $roots AS root_id
MATCH (root:Record {id: root_id})
USING INDEX SEEK root:Record(id)
MATCH p = (root)<-[:DERIVED_FROM*]-(d:Record)
WITH d, min(length(p)) AS depth
WITH d, depth, d {.id, .kind, .erased, .derived_from} AS m
WITH collect(CASE WHEN $pattern IS NOT NULL THEN d END) AS ds, collect(m.id) AS ids,
  collect(m.kind) AS kinds, collect(coalesce(m.erased, false)) AS erased,
  collect(depth) AS depths,
  collect(CASE WHEN m.erased THEN [(d)-[:DERIVED_FROM]->(parent:Record) | parent.id]
               ELSE coalesce(m.derived_from, []) END) AS parents,
  collect(CASE WHEN EXISTS { (d)<-[:EVIDENCED_BY|SELECTED]-() } THEN d END) AS cited_ds
CALL (ds) {
  WITH ds
  WHERE $pattern IS NOT NULL
  UNWIND ds AS d
  WITH d, [coalesce(d.content, ''), coalesce(d.asserted_value, ''),
           coalesce(d.provenance_json, ''), coalesce(d.metadata_json, ''),
           coalesce(d.asserts, ''), coalesce(d.thread, '')] AS texts
  WHERE any(s IN texts WHERE s =~ $pattern)
  RETURN collect(d.id) AS term_ids, collect(texts) AS term_texts
}
CALL (cited_ds) {
  UNWIND $roots AS root_id
  MATCH (x:Record {id: root_id})
  USING INDEX SEEK x:Record(id)
  WITH collect(x) AS root_nodes
  UNWIND cited_ds + root_nodes AS x
  MATCH (x)<-[r:EVIDENCED_BY|SELECTED]-(c)
  RETURN collect(x.id) AS cited, collect(c.id) AS citer, collect(type(r)) AS edge,
    collect(coalesce(c.kind, '')) AS citer_kind, collect(coalesce(c.erased, false)) AS citer_erased
}
RETURN ids, kinds, erased, depths, parents, term_ids, term_texts,
  cited, citer, edge, citer_kind, citer_erased
