// Which of $ids exist already, with the fingerprint of what was written.
UNWIND $ids AS id
MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
RETURN r.id AS id, r.fingerprint AS fingerprint, r.erased AS erased
