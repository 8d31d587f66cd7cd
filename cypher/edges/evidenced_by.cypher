// record -[:EVIDENCED_BY]-> evidence, for a batch of new records.
UNWIND $edges AS e
MATCH (c:Record {id: e.src})
MATCH (p:Record {id: e.dst})
CREATE (c)-[:EVIDENCED_BY]->(p)
RETURN count(*) AS created
