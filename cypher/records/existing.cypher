// Which of $ids exist already, with the fingerprint of what was written and the element id of
// the node (RecordWrites.write_prepared: the node a batch made itself).
UNWIND $ids AS id
MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
RETURN r.id AS id, r.fingerprint AS fingerprint, r.erased AS erased, elementId(r) AS node
