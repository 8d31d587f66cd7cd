// Take the intention's write lock. Run first in the firing or cancelling transaction, so that its
// status is read only after every concurrent transition on it has committed
// (docs/spec/intentions.md).
MATCH (i:Intention {id: $id})
USING INDEX SEEK i:Intention(id)
SET i._lock = true
RETURN i.id AS id
