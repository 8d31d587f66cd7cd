// The sort keys of every record a caller may reach in its scope, and the versions they were read
// at (docs/ui.md): the visible Scopes (rules 1 and 3, as candidates.cypher) with their versions as
// listing/versions.cypher reads them, then each record within $clearance, newest first
// (created_at, then id, both descending), as parallel lists: id, created_at, kind, authority,
// and the facts its status depends on besides the time and its successors (a map of its status
// flags, valid_from and expires_at, and whether any record SUPERSEDES it: a successor the caller
// may see sits in a Scope read here, so its arrival moves a version too). None of these changes
// without a version moving (every query that changes, creates or erases a record bumps its
// ScopeVersion's rev or its write slot's seq: tests/unit/db/test_catalogue.py), so
// graphmem.db.ops.listing keeps them while the versions are the same. No status: that depends on
// the time and is read for the rows a page shows (listing/rows.cypher); the facts only tell which
// records may have a status at a time. One row.
// $tenant, $tenants, $pairs, $clearance as for candidates.cypher; $slots: graphmem.db.slots.SLOTS.
{{visible_scope_versions}}
WITH collect(s) AS scopes,
     collect([s.key, coalesce(sv.epoch, s.epoch, ''), coalesce(sv.rev, s.rev, 0), wslots])
       AS versions
CALL (scopes) {
  UNWIND scopes AS s
  MATCH (s)<-[:IN_SCOPE]-(r:Record)
  WHERE r.sensitivity_rank <= $clearance
  WITH r.id AS id, r.created_at AS created_at, r.kind AS kind, r.authority AS authority,
       r {.erased, .quarantined, .pending_recompute, .retracted, .valid_from, .expires_at,
          superseded: EXISTS { (r)<-[:SUPERSEDES]-(:Record) }} AS facts
  ORDER BY created_at DESC, id DESC
  RETURN collect(id) AS ids, collect(created_at) AS created, collect(kind) AS kinds,
         collect(authority) AS authorities, collect(facts) AS facts
}
RETURN versions, ids, created, kinds, authorities, facts
