// Create record nodes in their scopes. Lineage edges follow in edges/*.cypher, once every
// node of the batch exists, so no query both reads and writes the same label (which would
// force an Eager plan step).
// $rows: {props, times: {created_at, valid_from, expires_at} as ISO-8601 strings or null,
// scope_key}. The Scope and ScopeVersion nodes are MATCHed, never MERGEd: MERGE of an existing node
// takes a shared lock that this transaction then upgrades (IN_SCOPE edge on a young Scope, the rev
// bump), and two writers each holding the shared lock deadlock. A row whose Scope or ScopeVersion
// is missing creates nothing and is not in `ids`; the caller creates them (scopes_merge.cypher) and
// runs it again (RecordWrites.create_in_tx). `nodes`: the element ids of the nodes made, in the
// order of `ids`, by which a batch knows its own commit (RecordWrites.write_prepared).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
UNWIND $rows AS row
MATCH (s:Scope {key: row.scope_key})
USING INDEX SEEK s:Scope(key)
MATCH (sv:ScopeVersion {key: s.key})
USING INDEX SEEK sv:ScopeVersion(key)
CREATE (r:Record)-[:IN_SCOPE]->(s)
SET r = row.props, r.created_at = datetime(row.times.created_at),
    r.valid_from = datetime(row.times.valid_from), r.expires_at = datetime(row.times.expires_at)
// Answers cached by candidates see the new records (store.Neo4jStore.candidates).
// Each new record is stamped with a rev of its own and the epoch (delta reads: candidates_delta,
// which trust a delta only when they found every rev since the answer's, one record each).
// Lock, then read (graphmem.db.slots): no `SET sv.rev = sv.rev + 1`.
WITH sv, collect(r) AS made
SET sv.locked = true
WITH sv, made, coalesce(sv.rev, 0) + 1 AS rev
SET sv.rev = rev + size(made) - 1
REMOVE sv.locked
WITH sv, made, rev
UNWIND range(0, size(made) - 1) AS i
WITH sv, made[i] AS x, rev + i AS rev
SET x.stamp = rev, x.sepoch = coalesce(sv.epoch, '')
RETURN collect(x.id) AS ids, collect(elementId(x)) AS nodes
