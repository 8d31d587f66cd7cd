// Relink the threads that a batch of new records joined: within one tenant and
// thread, each record -[:NEXT]-> the record at the next higher position. The whole chain
// of each named thread is rebuilt, so a record written between two neighbours takes its
// place between them. Runs in the records/create transaction (which bumps the Scopes).
// $threads: [{tenant, thread, thread_key}] (thread_key: graphmem.db.codec.thread_key, the
// digest the thread index holds instead of the thread's name).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
UNWIND $threads AS t
MATCH (r:Record {thread_key: t.thread_key})
USING INDEX r:Record(thread_key, position)
WHERE r.tenant = t.tenant AND r.thread = t.thread AND r.position IS NOT NULL
WITH t, r ORDER BY r.position
WITH t, collect(r) AS chain
CALL (chain) {
  UNWIND chain AS r
  MATCH (r)-[old:NEXT]->()
  DELETE old
}
CALL (chain) {
  UNWIND range(0, size(chain) - 2) AS i
  WITH chain[i] AS a, chain[i + 1] AS b
  CREATE (a)-[:NEXT]->(b)
}
RETURN count(t) AS threads
