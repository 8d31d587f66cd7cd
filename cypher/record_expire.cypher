// Declared expiry: the record stops being active at $at.
MATCH (r:Record {id: $id})
WHERE NOT r.erased
SET r.expires_at = $at
RETURN r.id AS id
