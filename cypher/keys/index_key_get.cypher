// The database's index key (graphmem.db.index_key), read only: no row when it has none yet.
MATCH (k:GraphmemKey {name: $key_name})
USING INDEX SEEK k:GraphmemKey(name)
RETURN k.key AS key
