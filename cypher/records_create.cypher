// Create records with their scope and lineage edges. Referenced ids were checked first.
UNWIND $rows AS row
CREATE (r:Record)
SET r = row.props
MERGE (s:Scope {key: row.scope_key})
  ON CREATE SET s.tenant = row.tenant, s.pairs = row.scope_pairs
CREATE (r)-[:IN_SCOPE]->(s)
WITH r, row
CALL (r, row) {
  UNWIND row.supersedes AS old_id
  MATCH (old:Record {id: old_id})
  CREATE (r)-[:SUPERSEDES]->(old)
}
CALL (r, row) {
  UNWIND range(0, size(row.derived_from) - 1) AS i
  MATCH (parent:Record {id: row.derived_from[i]})
  CREATE (r)-[:DERIVED_FROM {ord: i}]->(parent)
}
CALL (r, row) {
  UNWIND row.evidence_ids AS ev_id
  MATCH (ev:Record {id: ev_id})
  CREATE (r)-[:EVIDENCED_BY]->(ev)
}
RETURN count(r) AS created
