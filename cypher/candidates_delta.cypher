// What changed in a cached candidates answer (candidates.cypher), read without reading the
// records that did not change (the read right after a write). Same parameters as
// candidates.cypher, and $known: the [key, epoch, rev, wslots] versions the cached answer was
// computed at. Every query that changes a record bumps its ScopeVersion's rev and stamps the
// record with it and the version's epoch (r.stamp, r.sepoch), except a policy write, which
// stamps its new record with its write slot's index, seq and epoch (r.wslot, r.wseq, r.wepoch:
// parts/record_store). So the records a visible scope changed since version (k, seqs) are those
// with sepoch = its epoch and stamp > k, or wepoch = slot i's epoch and wseq > seqs[i]: found by
// seeks in the indexes record_scope_stamp and record_slot_stamp, never by visiting the scope's
// records (all of a scope the answer did not know is read). A stamp is the record's last one, so
// a record changed twice since is found by the later. Their predecessors (SUPERSEDES) are
// looked at too: a new or changed successor is the only way a record's status changes without
// the record itself changing (rule 4). Each touched record is then decided with exactly the
// rule of candidates.cypher (parts/record_active), and its times are returned as boundaries.
// Neo4j reads committed state, but a transaction's index entries become visible after its
// store records: a version read here may be ahead of what the seeks find. Every rev and every
// seq is stamped on exactly one record when it is bumped, and bumps of one version are
// serialized by its lock, held until the bumping transaction closed, so the caller keeps a
// delta only when it found a record for every rev and seq since its versions (each record
// returns its stamps): a gap is a change not yet visible (or one a later change restamped or
// deleted), and it reads again a moment later, then computes in full. The caller also computes in full when an epoch
// moved or a known scope vanished, and reuses its answer when no version moved (then no record is read: this
// query is also the cached answer's version check, one round trip either way).
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
{{visible_scope_versions}}
WITH s, [s.key, coalesce(sv.epoch, s.epoch, ''), coalesce(sv.rev, s.rev, 0), wslots] AS version,
     coalesce(sv.epoch, '') AS stamp_epoch
WITH collect(s) AS scopes, collect(version) AS versions,
     collect([s, [k IN $known WHERE k[0] = version[0] AND k[1] = version[1]], version,
              stamp_epoch]) AS plan
CALL (plan) {
  UNWIND plan AS step
  WITH step[0] AS s, step[2] AS version, step[3] AS epoch,
       CASE WHEN size(step[1]) = 0 THEN null ELSE step[1][0] END AS known
  // since: the rev the answer knew (-1: the scope is new to it, read all of it); seqs[i]:
  // the seq it knew of slot i (0 when the slot did not exist then; -1 when the slot was
  // created again since, then the caller computes in full anyway)
  WITH s, epoch, version[2] AS rev, version[3] AS now_slots,
       CASE WHEN known IS NULL THEN -1 ELSE known[2] END AS since,
       [i IN range(0, $slots - 1) |
        CASE WHEN known IS NULL THEN -1
             ELSE head([k IN known[3] WHERE k[0] = i |
                        CASE WHEN k[1] = head([w IN version[3] WHERE w[0] = i | w[1]])
                             THEN k[2] WHEN k[1] = '' THEN 0 ELSE -1 END] + [-1]) END] AS seqs
  // the slots that moved, as [epoch, the seq known]: their new records are seeked by stamp
  WITH s, epoch, rev, since,
       [w IN now_slots WHERE w[2] > seqs[w[0]] | [w[1], seqs[w[0]]]] AS moved
  WITH s, epoch, rev, since, moved WHERE since < rev OR size(moved) > 0  // unchanged: not read
  CALL (s, epoch, rev, since, moved) {
    WITH s, since WHERE since < 0  // new to the answer: all of it
    MATCH (s)<-[:IN_SCOPE]-(r:Record)
    RETURN r
    UNION
    // stamped by the ScopeVersion since (the bound is in the seek: none when new, above)
    MATCH (r:Record)
    USING INDEX SEEK r:Record(sepoch, stamp)
    WHERE r.sepoch = epoch AND r.stamp > CASE WHEN since < 0 THEN rev ELSE since END
    RETURN r
    UNION
    WITH since, moved WHERE since >= 0
    UNWIND moved AS w  // written through a slot since
    MATCH (r:Record)
    USING INDEX SEEK r:Record(wepoch, wseq)
    WHERE r.wepoch = w[0] AND r.wseq > w[1]
    RETURN r
  }
  OPTIONAL MATCH (r)-[:SUPERSEDES]->(p:Record)
  WITH collect(r) + collect(p) AS both
  UNWIND both AS t
  RETURN collect(DISTINCT t) AS touched
}
CALL (scopes, touched) {
  UNWIND touched AS r
  WITH r, $tenant AS q_tenant, $pairs AS q_pairs, $now AS now,
       EXISTS { MATCH (r)-[:IN_SCOPE]->(rs:Scope) WHERE rs IN scopes } AS visible
  WITH r, now, visible AND {{record_active}} AS active
  // one list per record: collect() would drop a tombstone's missing fingerprint; an active
  // record comes with its properties (no second round trip for what just changed), and each
  // with its stamps, by which the caller checks that it found every change since its versions
  RETURN collect([r.id, active, r.fingerprint, coalesce(r.rev, 0),
                  CASE WHEN active THEN r {.*} END,
                  [r.sepoch, r.stamp, r.wepoch, r.wseq]]) AS decided,
         max(CASE WHEN r.valid_from <= $now THEN r.valid_from END) AS lo_from,
         max(CASE WHEN r.expires_at <= $now THEN r.expires_at END) AS lo_expiry,
         max(CASE WHEN r.created_at <= $now THEN r.created_at END) AS lo_created,
         min(CASE WHEN r.valid_from > $now THEN r.valid_from END) AS hi_from,
         min(CASE WHEN r.expires_at > $now THEN r.expires_at END) AS hi_expiry,
         min(CASE WHEN r.created_at > $now THEN r.created_at END) AS hi_created
}
RETURN versions, decided,
       lo_from, lo_expiry, lo_created, hi_from, hi_expiry, hi_created
