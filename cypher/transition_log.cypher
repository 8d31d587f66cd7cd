// A declared lifecycle transition with who, why and when (docs/spec/write-path.md).
// $successor: the record that replaces this one (a supersession's or consolidation's, which
// its reason names), or null: a bound caller who cannot read it is not told its id
// (docs/spec/eligibility.md#confinement; cypher/transitions_for.cypher). $token: the random id
// of the call that logs it, by which a run of that call again, after its commit's
// acknowledgement was lost, knows it logged it (records/transition_ours.cypher), or null.
// A statement of the agent loop: planned once, kept (graphmem.db.catalogue, "Plans").
CYPHER replan=skip
MATCH (r:Record {id: $record_id})
USING INDEX SEEK r:Record(id)
CREATE (t:Transition {record_id: $record_id, kind: $kind, by: $by, reason: $reason, at: $at,
                      successor: $successor, token: $token})
CREATE (t)-[:ON]->(r)
RETURN count(t) AS logged
