// Materialise CONFLICTS_WITH between new records and same-tenant records that assert
// the same key with another value (SPEC section 5, step 4). Filtered to candidates at read time.
UNWIND $ids AS id
MATCH (r:Record {id: id})
WHERE r.asserts IS NOT NULL AND r.asserted_value IS NOT NULL
MATCH (other:Record {tenant: r.tenant, asserts: r.asserts})
WHERE other <> r AND other.asserted_value IS NOT NULL AND other.asserted_value <> r.asserted_value
MERGE (r)-[:CONFLICTS_WITH]-(other)
RETURN count(*) AS linked
