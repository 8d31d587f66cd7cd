// Delete up to $limit nodes. Used only by the test suite and the demo on databases they
// created themselves.
MATCH (n)
WITH n LIMIT $limit
DETACH DELETE n
RETURN count(*) AS deleted
