// Full stored properties of the records with the given ids.
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
UNWIND $ids AS id
MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
RETURN r {.*} AS record
