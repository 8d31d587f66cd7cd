// Up to $limit assertion groups whose gkey is still the clear JSON of [tenant, key] (before
// gkeys were digests: graphmem.db.codec.assertion_group); the migration replaces each.
MATCH (a:Assertion)
WHERE a.gkey STARTS WITH '['
RETURN a.gkey AS gkey, a.tenant AS tenant, a.key AS key
LIMIT $limit
