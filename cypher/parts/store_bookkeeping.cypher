// Part of queries, not a query: `{{store_bookkeeping}}` stands for "node `n` is one of what
// every opened store holds, whatever its data: a migration's version or the index key". A
// store holding nothing else is empty (nothing to migrate, room for an initial load).
n:GraphmemMigration OR n:GraphmemKey
