// child -[:DERIVED_FROM {ord}]-> parent, for a batch of new records.
UNWIND $edges AS e
MATCH (c:Record {id: e.src})
USING INDEX SEEK c:Record(id)
MATCH (p:Record {id: e.dst})
USING INDEX SEEK p:Record(id)
CREATE (c)-[:DERIVED_FROM {ord: e.ord}]->(p)
RETURN count(*) AS created
