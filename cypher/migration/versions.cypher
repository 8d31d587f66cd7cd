// The version each one-time data migration reached in this database (graphmem.db.migrations),
// and whether the database holds anything besides those versions: a store that holds nothing
// has nothing to migrate. The check stops at the first other node it meets.
RETURN COLLECT {
         MATCH (m:GraphmemMigration)
         RETURN {name: m.name, version: m.version}
       } AS reached,
       NOT EXISTS {
         MATCH (n)
         WHERE NOT n:GraphmemMigration
       } AS empty
