// Whether a database is empty for an initial load (graphmem.db.bulk_load): how many nodes it
// holds besides the GraphmemMigration versions every opened store records.
MATCH (n)
WHERE NOT n:GraphmemMigration
RETURN count(n) AS nodes
