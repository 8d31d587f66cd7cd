// The version each one-time data migration reached in this database (graphmem.db.migrations),
// and whether the database holds anything besides those versions and its index key: a store
// that holds nothing else has nothing to migrate. The check stops at the first other node.
RETURN COLLECT {
         MATCH (m:GraphmemMigration)
         RETURN {name: m.name, version: m.version}
       } AS reached,
       NOT EXISTS {
         MATCH (n)
         WHERE NOT {{store_bookkeeping}}
       } AS empty
