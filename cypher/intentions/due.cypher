// Pending intentions whose cue equals one of the event's (kind, value) pairs exactly
// (docs/spec/intentions.md), found through the intention_cue_digest index and then held to the
// eligibility rules of records (docs/spec/eligibility.md): tenant readable by the caller,
// sensitivity within clearance, scope pairs a subset of the query's.
// The index holds keyed digests of cues, never their text (graphmem.db.index_key): $key is
// the index key the client digested $cues with ([{kind, value, digest}]); when it is not the
// database's key any more (`fresh` false, no intentions) the client reads the key again. The
// clear cue is compared after the seek, so a match is exact. Other parameters as in
// candidates.cypher.
OPTIONAL MATCH (k:GraphmemKey {name: $key_name})
USING INDEX SEEK k:GraphmemKey(name)
WITH coalesce(k.key = $key, false) AS fresh
CALL (fresh) {
  WITH fresh WHERE fresh
  UNWIND $cues AS cue
  MATCH (i:Intention {cue_digest: cue.digest})
  USING INDEX SEEK i:Intention(cue_digest)
  WHERE i.tenant = $tenant AND i.trigger_kind = cue.kind AND i.trigger_value = cue.value
    AND $tenant IN $tenants
    AND i.status = 'pending' AND NOT coalesce(i.erased, false)
    AND i.sensitivity_rank <= $clearance
    AND (i.expires_at IS NULL OR $now < i.expires_at)
  MATCH (i)-[:IN_SCOPE]->(s:Scope)
  WHERE all(p IN s.pairs WHERE p IN $pairs)
  WITH DISTINCT i
  ORDER BY i.created_at, i.id
  RETURN collect(i {.*}) AS intentions
}
RETURN fresh, intentions
