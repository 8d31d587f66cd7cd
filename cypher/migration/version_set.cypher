// Record that data migration $migration reached $version (after all its batches committed).
MERGE (m:GraphmemMigration {name: $migration})
SET m.version = $version, m.at = $at
RETURN m.version AS version
