// Full stored properties of the records with the given ids.
UNWIND $ids AS id
MATCH (r:Record {id: id})
RETURN r {.*} AS record
