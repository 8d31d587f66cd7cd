// Whether a database is empty for an initial load (graphmem.db.bulk_load): how many nodes it
// holds besides the GraphmemMigration versions and the GraphmemKey every opened store records.
MATCH (n)
WHERE NOT {{store_bookkeeping}}
RETURN count(n) AS nodes
