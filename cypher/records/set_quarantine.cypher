// Quarantine ($flag = true) or promote out of quarantine ($flag = false).
MATCH (r:Record {id: $id})
USING INDEX SEEK r:Record(id)
WHERE NOT r.erased
SET r.quarantined = $flag, r.rev = coalesce(r.rev, 0) + 1
WITH r
CALL (r) {
  {{scope_bump}}
}
RETURN r.id AS id
