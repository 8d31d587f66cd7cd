// Full stored properties of the records with the given ids.
UNWIND $ids AS id
MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
RETURN r {.*} AS record
