// LangGraph store: how many embeddings (LgVector nodes) each of the records $ids has; for
// audits and tests (an erased record has none). Rows {id, vectors} for the ids found.
// $ids: record ids.
UNWIND $ids AS id
MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
RETURN id, COUNT { (v:LgVector)-[:EMBEDS]->(r) } AS vectors
