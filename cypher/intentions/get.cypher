// Stored properties of one intention.
MATCH (i:Intention {id: $id})
RETURN i {.*} AS intention
