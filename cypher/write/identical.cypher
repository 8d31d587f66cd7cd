// A policy write whose record is stored already, identically (the whole record: the repeat of a
// call that took effect, after a timeout, a lost acknowledgement or by a second worker;
// graphmem.db.ops.admission): `in_effect`, whether the stored record is what the write would have
// made it, admitted (not quarantined: promoted since, if ever) and superseding every id of
// $supersedes (a quarantined record supersedes nothing: docs/spec/status.md#superseded); when it
// is, the write's declared transitions not logged yet are logged now, so the call's outcome is
// whole and a repeat logs none twice (`logged`: how many). The transaction holds the write's
// slot locks (write/check.cypher), so two repeats of one call run one after the other.
// $declared: [{record_id, kind, reason, successor}] (successor: an id or null), by $by at $at.
MATCH (r:Record {id: $record_id})
USING INDEX SEEK r:Record(id)
WITH r, NOT coalesce(r.quarantined, false) AND all(id IN $supersedes WHERE EXISTS {
  MATCH (r)-[:SUPERSEDES]->(p:Record)
  WHERE p.id = id
}) AS in_effect
CALL (in_effect) {
  UNWIND CASE WHEN in_effect THEN $declared ELSE [] END AS t
  MATCH (p:Record {id: t.record_id})
  USING INDEX SEEK p:Record(id)
  WITH t, p
  WHERE NOT EXISTS {
    MATCH (p)<-[:ON]-(x:Transition)
    WHERE x.kind = t.kind AND coalesce(x.successor, '') = coalesce(t.successor, '')
  }
  CREATE (:Transition {record_id: p.id, kind: t.kind, by: $by, reason: t.reason, at: $at,
                       successor: t.successor})-[:ON]->(p)
  RETURN count(*) AS logged
}
RETURN in_effect, logged
