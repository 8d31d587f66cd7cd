// Put each new record that asserts a key into its assertion group (SPEC section 5, step 4):
// one (:Assertion {gkey}) node per (tenant, key), gkey = the JSON of [tenant, key]. Records of
// one group with different asserted values conflict; the read path finds them among the
// candidates, so a write costs the same however many records assert the key. The group
// node is never written after its creation (only edges are added), so writers do not queue
// on it. $rows: {id, gkey, tenant, key}.
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
MERGE (a:Assertion {gkey: row.gkey})
  ON CREATE SET a.tenant = row.tenant, a.key = row.key
CREATE (r)-[:ASSERTS]->(a)
RETURN count(*) AS linked
