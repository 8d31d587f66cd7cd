// The database's index key (graphmem.db.index_key): made on first use from the caller's
// random $candidate (64 hex digits), then the same for every client; the uniqueness
// constraint on the name makes concurrent first uses agree. `created`: this call made it.
MERGE (k:GraphmemKey {name: $key_name})
  ON CREATE SET k.key = $candidate
RETURN k.key AS key, k.key = $candidate AS created
