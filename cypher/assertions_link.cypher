// Put each new record that asserts a key into its assertion group
// (docs/spec/read-path.md#conflicts): one (:Assertion {gkey}) node per (tenant, key), gkey = the
// JSON of [tenant, key]. Records of one group with different asserted values conflict; the read
// path finds them among the candidates, so a write costs the same however many records assert the
// key. The group node is never written after its creation (only edges are added). It is MATCHed,
// and MERGEd only when missing: MERGE of an existing node takes a shared lock that the ASSERTS edge
// then upgrades (a young group is not dense), and two writers holding it deadlock
// (graphmem.db.slots creates groups ahead of the write). $rows: {id, gkey, tenant, key}.
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
USING INDEX SEEK r:Record(id)
OPTIONAL MATCH (found:Assertion {gkey: row.gkey})
USING INDEX SEEK found:Assertion(gkey)
CALL (row, found) {
  WITH row, found WHERE found IS NULL
  MERGE (a:Assertion {gkey: row.gkey})
    ON CREATE SET a.tenant = row.tenant, a.key = row.key
  RETURN a
  UNION
  WITH found WHERE found IS NOT NULL
  RETURN found AS a
}
CREATE (r)-[:ASSERTS]->(a)
RETURN count(*) AS linked
