// child -[:DERIVED_FROM {ord}]-> parent, for a batch of new records.
UNWIND $edges AS e
MATCH (c:Record {id: e.src})
MATCH (p:Record {id: e.dst})
CREATE (c)-[:DERIVED_FROM {ord: e.ord}]->(p)
RETURN count(*) AS created
