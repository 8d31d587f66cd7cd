// LangGraph store: refresh the TTL of items a read returned (LangGraph's refresh_ttl): each
// record put with a TTL (r.lg_ttl, minutes) that is still live gets expires_at = $now + its
// TTL when that is later than its expiry, as a declared transition ('expiry_extended', with
// who, when, and the expiry before and after), and its Scope's version bumped
// (parts/scope_bump). Records that never expire, or whose extension would not move their
// expiry, are left as they are.
// $ids: record ids; $now: UTC datetime; $actor, $reason: who and why.
UNWIND $ids AS id
MATCH (r:Record {id: id})
USING INDEX SEEK r:Record(id)
WHERE r.lg_ttl IS NOT NULL AND r.expires_at IS NOT NULL AND $now < r.expires_at
  AND NOT r.retracted AND NOT r.erased
WITH r, $now + duration({milliseconds: toInteger(round(r.lg_ttl * 60000.0))}) AS until
WHERE until > r.expires_at
CREATE (:Transition {record_id: r.id, kind: 'expiry_extended', by: $actor, reason: $reason,
                     at: $now, expires_before: r.expires_at, expires_after: until})-[:ON]->(r)
SET r.expires_at = until, r.rev = coalesce(r.rev, 0) + 1
WITH r
CALL (r) {
  {{scope_bump}}
}
RETURN count(r) AS refreshed
