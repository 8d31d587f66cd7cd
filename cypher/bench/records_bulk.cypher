// Benchmarks only (bench/deletion_walk.py): create many records fast, without the write path's
// checks. $rows: {props (record_props of a validated record, without its datetimes), times
// (created_at, valid_from, expires_at as ISO-8601 strings or null), parents}; every parent
// must exist already or come earlier in $rows; $scope_key names an existing Scope node (scopes_merge).
MATCH (s:Scope {key: $scope_key})
USING INDEX SEEK s:Scope(key)
MERGE (sv:ScopeVersion {key: s.key})
  ON CREATE SET sv.epoch = randomUUID(), sv.tenant = s.tenant
WITH s, sv, coalesce(sv.rev, 0) + 1 AS rev  // a rev of its own per record (candidates_delta)
SET sv.rev = rev + size($rows) - 1
WITH s, sv, rev
UNWIND range(0, size($rows) - 1) AS at
WITH s, sv, $rows[at] AS row, rev + at AS rev
CREATE (r:Record)
SET r = row.props, r.stamp = rev, r.sepoch = coalesce(sv.epoch, ''),
    r.created_at = datetime(row.times.created_at), r.valid_from = datetime(row.times.valid_from),
    r.expires_at = datetime(row.times.expires_at)
CREATE (r)-[:IN_SCOPE]->(s)
WITH r, row
CALL (r, row) {
  UNWIND range(0, size(row.parents) - 1) AS i
  MATCH (parent:Record {id: row.parents[i]})
  USING INDEX SEEK parent:Record(id)
  CREATE (r)-[:DERIVED_FROM {ord: i}]->(parent)
}
RETURN count(r) AS created
