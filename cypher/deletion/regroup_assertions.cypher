// After redaction changed what records assert (docs/spec/deletion.md): move each record to the
// assertion group of its redacted key (the group is data too: its key holds the asserted key's
// text), then drop the groups in $drop (element ids of groups whose key holds a term, found by the
// client's matcher) that no record asserts any more (erased records left them, or the move emptied
// them), so no Assertion node keeps the text. The records moved were stamped by
// deletion/redact/text in the same transaction, so cached eligibility answers re-read their groups.
// $rows: {eid, gkey, key}; $drop: element ids.
CALL () {
  UNWIND $rows AS row
  MATCH (r:Record) WHERE elementId(r) = row.eid
  CALL (r) {
    MATCH (r)-[old:ASSERTS]->()
    DELETE old
  }
  MERGE (a:Assertion {gkey: row.gkey})
    ON CREATE SET a.tenant = r.tenant, a.key = row.key
  CREATE (r)-[:ASSERTS]->(a)
  RETURN count(*) AS moved
}
CALL () {
  UNWIND $drop AS eid
  MATCH (a:Assertion) WHERE elementId(a) = eid AND NOT EXISTS { (a)<-[:ASSERTS]-() }
  DELETE a
  RETURN count(*) AS dropped
}
RETURN moved, dropped
