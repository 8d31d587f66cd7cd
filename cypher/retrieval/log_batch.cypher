// Many retrievals' logs in one statement (retrievals logged together, graphmem.db.batches):
// $entries, one map per retrieval, each retrieval/log.cypher's parameters with what it selected
// (retrieval/selected.cypher's $selected_ids, $conflict_keys and $selected) and its position
// `pos` in the batch, sorted by candidate digest (sets are merged in one order). Each entry is
// stored by the same part as one retrieval alone (parts/retrieval_store), then linked to what it
// selected as retrieval/selected links it; an entry sees what the ones before it stored (two
// retrievals over one new candidate set store it once). Returns, per entry, its position, and
// `incomplete` and `depth` as retrieval/log does (the client then runs candidate_set_fill for
// an incomplete set, in the same transaction).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
UNWIND $entries AS e
CALL (e) {
  {{retrieval_store}}
  SET q.selected_ids = e.selected_ids, q.conflict_keys = e.conflict_keys
  WITH e, q, cs, links, stop
  CALL (q, e) {
    UNWIND e.selected AS s
    MATCH (r:Record {id: s.id})
    USING INDEX SEEK r:Record(id)
    CREATE (q)-[:SELECTED {score: s.score, reason: s.reason, rank: s.rank}]->(r)
  }
  RETURN links[stop] IS NULL OR NOT links[stop].whole AS incomplete,
    size(coalesce(cs.base_digests, [])) AS depth
}
RETURN e.pos AS pos, incomplete, depth
