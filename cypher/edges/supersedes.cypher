// successor -[:SUPERSEDES]-> predecessor, for a batch of new records.
UNWIND $edges AS e
MATCH (c:Record {id: e.src})
MATCH (p:Record {id: e.dst})
CREATE (c)-[:SUPERSEDES]->(p)
RETURN count(*) AS created
