// Rebuild the assertion group constraint after the gkey migration (graphmem.db.migrations):
// its index file kept the clear-text gkeys the migration replaced (a range index keeps a
// removed key's bytes), and a dropped index's files are deleted. Schema commands, one
// auto-commit transaction each, like schema.cypher.
DROP CONSTRAINT assertion_group IF EXISTS;
CREATE CONSTRAINT assertion_group IF NOT EXISTS FOR (a:Assertion) REQUIRE a.gkey IS UNIQUE;
CALL db.awaitIndexes(300)
