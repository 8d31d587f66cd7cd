// Every node with its labels, properties and outgoing relationships (type, properties, target
// id or key). Tests compare two snapshots to prove that an operation changed nothing.
MATCH (n)
RETURN labels(n) AS labels, properties(n) AS props,
  [(n)-[e]->(m) | [type(e), properties(e), coalesce(m.id, m.key, elementId(m))]] AS out
