// Whether an intention id is taken, with the fingerprint of what was written and the token of
// the call that created it (docs/spec/intentions.md).
MATCH (i:Intention {id: $id})
USING INDEX SEEK i:Intention(id)
RETURN i.id AS id, i.fingerprint AS fingerprint, i.create_token AS token
