// The parents of deletion descendants outside the walk ($ids): which name a stored record, and
// which of those an earlier request erased; one row with two lists.
UNWIND $ids AS id
MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
RETURN collect(r.id) AS stored,
  collect(CASE WHEN coalesce(r.erased, false) THEN r.id END) AS erased
