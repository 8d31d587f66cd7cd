// The declared transitions (fire, cancel) of one intention, oldest first.
MATCH (i:Intention {id: $id})<-[:ON]-(t:Transition)
USING INDEX SEEK i:Intention(id)
RETURN t.kind AS kind, t.by AS by, t.reason AS reason, t.at AS at
ORDER BY t.at, t.kind
