// Wait (up to 300 s) until every index is online, after schema.cypher.
CALL db.awaitIndexes(300)
