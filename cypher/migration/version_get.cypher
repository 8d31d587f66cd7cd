// The version a one-time data migration ($migration) reached in this database (null: never run).
OPTIONAL MATCH (m:GraphmemMigration {name: $migration})
RETURN m.version AS version
