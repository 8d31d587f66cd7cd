// The versions of the Scopes a caller sees in its scope (docs/ui.md; the visible Scopes as
// candidates.cypher): [key, epoch, rev, wslots] of each, as candidates.cypher reads them, and
// nothing of any record. Every query that changes, creates or erases a record bumps the rev of its
// ScopeVersion or, a policy write, its write slot's seq (tests/unit/db/test_catalogue.py), so a
// count of records by flag, which does not depend on the time, is the same while these are.
// $tenant, $tenants, $pairs as for candidates.cypher; $slots: graphmem.db.slots.SLOTS.
{{visible_scope_versions}}
RETURN collect([s.key, coalesce(sv.epoch, s.epoch, ''), coalesce(sv.rev, s.rev, 0), wslots])
  AS versions
