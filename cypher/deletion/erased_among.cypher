// Which of $ids (parents of deletion descendants outside the walk) an earlier request erased;
// one row with a list.
UNWIND $ids AS id
MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
WHERE coalesce(r.erased, false)
RETURN collect(r.id) AS erased
