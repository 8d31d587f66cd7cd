// Whether an intention id is taken, with the fingerprint of what was written
// (docs/spec/intentions.md).
MATCH (i:Intention {id: $id})
USING INDEX SEEK i:Intention(id)
RETURN i.id AS id, i.fingerprint AS fingerprint
