// Quarantine ($flag = true) or promote out of quarantine ($flag = false).
MATCH (r:Record {id: $id})
WHERE NOT r.erased
SET r.quarantined = $flag
RETURN r.id AS id
