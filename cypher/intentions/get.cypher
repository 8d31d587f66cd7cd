// Stored properties of one intention.
MATCH (i:Intention {id: $id})
USING INDEX SEEK i:Intention(id)
RETURN i {.*} AS intention
