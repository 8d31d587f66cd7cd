// The declared transitions and write decisions of one record, oldest first.
CALL () {
  MATCH (t:Transition {record_id: $id})
  USING INDEX SEEK t:Transition(record_id)
  RETURN t.kind AS kind, t.by AS by, t.reason AS reason, t.at AS at
  UNION ALL
  MATCH (w:WriteDecision {record_id: $id})
  USING INDEX SEEK w:WriteDecision(record_id)
  RETURN 'write:' + w.disposition AS kind, w.by AS by, w.reason AS reason, w.at AS at
}
RETURN kind, by, reason, at
ORDER BY at, kind
