// After redaction changed what records assert (SPEC section 7, issue 12 item 1): move each
// record to the assertion group of its redacted key (the group is data too: its key holds
// the asserted key's text), then drop the groups of $tenants that no record asserts any more
// and whose key holds a term (erased records left them, or the move emptied them), so no
// Assertion node keeps the text. The records moved were stamped by deletion/redact/text in
// the same transaction, so cached eligibility answers re-read their groups.
// $rows: {eid, gkey, key}; $tenants; $terms: lower-cased terms.
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
  MATCH (a:Assertion)
  WHERE a.tenant IN $tenants AND NOT EXISTS { (a)<-[:ASSERTS]-() }
    AND any(t IN $terms WHERE toLower(normalize(coalesce(a.key, ''))) CONTAINS t)
  DELETE a
  RETURN count(*) AS dropped
}
RETURN moved, dropped
