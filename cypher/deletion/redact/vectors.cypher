// Drop the embeddings (LgVector nodes) of LangGraph items ($ids: record ids) whose value a
// redaction changed (docs/spec/deletion.md#redaction): they were computed from text that held
// a term, and a query near that text would still rank the item first. The item stays, found by
// key and filter and unscored by a query, as one put with index=False.
UNWIND $ids AS id
MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
MATCH (v:LgVector)-[:EMBEDS]->(r)
DETACH DELETE v
RETURN count(v) AS dropped
