// Record that each data migration of $versions ([{name, version}]) reached its version (after
// all its batches committed, or at once in a store that held nothing to migrate).
UNWIND $versions AS reached
MERGE (m:GraphmemMigration {name: reached.name})
SET m.version = reached.version, m.at = $at
RETURN count(m) AS recorded
