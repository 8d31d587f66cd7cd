// Eligible and ACTIVE records for a caller, exactly (docs/spec/eligibility.md#eligible-and-active:
// the visible Scopes, then parts/record_active), in one row.
// $tenant: the query scope's tenant; $tenants: the principal's tenants; $pairs: the query
// scope as JSON-encoded [key, value] pairs; $clearance: sensitivity rank; $now: UTC datetime.
// Returns parallel lists (ids, fingerprints, revs), in id order: one row
// decodes far faster than one Bolt record per candidate. The client rebuilds only records
// it has not cached at that version (every query that changes a record bumps r.rev).
// Also returns what the client needs to reuse this answer exactly (Neo4jStore.candidates):
// versions: [key, epoch, rev, wslots] of every visible Scope, read before any record (every
// query that changes a record, or creates or erases one, bumps the rev of the record's
// ScopeVersion, except a policy write, which bumps its write slot's seq: wslots, from
// parts/write_slot_versions.cypher; $slots: graphmem.db.slots.SLOTS);
// lo_* / hi_*: the latest validity boundary (created_at, valid_from or expires_at of any
// record in the visible scopes) at or before $now, and the earliest after it. Between two
// boundaries, and while no version moves, the answer cannot change.
// Rule 2: a record created after $now did not exist yet (NOT_YET_VALID). Rule 4: a successor
// supersedes once admitted and effective at $now, whatever happened to it since (retraction,
// expiry, supersession, pending recompute, erasure: tombstones keep scope, times, edges and
// `admitted`); a successor quarantined now, or erased while quarantined, does not.
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
{{visible_scope_versions}}
WITH collect(s) AS scopes,
     collect([s.key, coalesce(sv.epoch, s.epoch, ''), coalesce(sv.rev, s.rev, 0), wslots])
       AS versions
CALL (scopes) {
  UNWIND scopes AS s
  MATCH (s)<-[:IN_SCOPE]-(r:Record)
  WITH r.valid_from AS vf, r.expires_at AS xa, r.created_at AS ca
  RETURN max(CASE WHEN vf <= $now THEN vf END) AS lo_from,
         max(CASE WHEN xa <= $now THEN xa END) AS lo_expiry,
         max(CASE WHEN ca <= $now THEN ca END) AS lo_created,
         min(CASE WHEN vf > $now THEN vf END) AS hi_from,
         min(CASE WHEN xa > $now THEN xa END) AS hi_expiry,
         min(CASE WHEN ca > $now THEN ca END) AS hi_created
}
CALL (scopes) {
  UNWIND scopes AS s
  MATCH (s)<-[:IN_SCOPE]-(r:Record)
  WITH r, $tenant AS q_tenant, $pairs AS q_pairs, $now AS now
  WHERE {{record_active}}
  WITH r ORDER BY r.id
  RETURN collect(r.id) AS ids, collect(r.fingerprint) AS fingerprints,
         collect(coalesce(r.rev, 0)) AS revs
}
RETURN versions, lo_from, lo_expiry, lo_created, hi_from, hi_expiry, hi_created,
       ids, fingerprints, revs
