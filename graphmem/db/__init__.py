"""The database layer: the local Neo4j launcher, connection settings, the Cypher catalogue and
the store (the only code that talks to Neo4j). Uses ``models`` and ``errors``, no domain."""
