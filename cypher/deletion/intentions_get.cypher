// The stored properties of intentions ($ids) that are not erased, to be redacted by the client
// (their action and cue, and the fingerprint and cue digest those make).
UNWIND $ids AS id
MATCH (i:Intention {id: id})
USING INDEX SEEK i:Intention(id)
WHERE NOT coalesce(i.erased, false)
RETURN i {.*} AS intention
