// Record that each data migration of $versions ([{name, version}]) reached its version, after
// all its batches committed. With $if_empty, only if the store holds nothing besides the
// versions and its index key, checked in this transaction (a store with nothing to migrate
// records every version at once): `recorded` is 0 when it holds more.
WITH $versions AS versions
WHERE NOT $if_empty
   OR NOT EXISTS {
        MATCH (n)
        WHERE NOT {{store_bookkeeping}}
      }
UNWIND versions AS reached
MERGE (m:GraphmemMigration {name: reached.name})
SET m.version = reached.version, m.at = $at
RETURN count(m) AS recorded
