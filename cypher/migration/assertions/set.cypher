// Give assertion groups their digest gkeys ($rows: {old, gkey}). A group whose digest gkey
// exists already (made meanwhile by a writer of the new version) gives it its records and
// goes, so a key keeps one group.
UNWIND $rows AS row
MATCH (a:Assertion {gkey: row.old})
USING INDEX SEEK a:Assertion(gkey)
OPTIONAL MATCH (b:Assertion {gkey: row.gkey})
USING INDEX SEEK b:Assertion(gkey)
CALL (a, b, row) {
  WITH a, row WHERE b IS NULL
  SET a.gkey = row.gkey
}
CALL (a, b) {
  WITH a, b WHERE b IS NOT NULL
  MATCH (r)-[e:ASSERTS]->(a)
  CREATE (r)-[:ASSERTS]->(b)
  DELETE e
}
CALL (a, b) {
  WITH a WHERE b IS NOT NULL
  DELETE a
}
RETURN count(*) AS updated
