// One page of intentions that hold a cue (erased tombstones have none), in id order after
// $after: the cue digests graphmem.db.index_key recomputes in Python.
MATCH (i:Intention)
WHERE i.id > $after AND i.trigger_value IS NOT NULL
RETURN i.id AS id, i.tenant AS tenant, i.trigger_kind AS kind, i.trigger_value AS value,
       i.cue_digest AS cue_digest
ORDER BY i.id
LIMIT $limit
