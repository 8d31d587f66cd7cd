// Create an intention in its Scope node (the same Scope nodes, keys and pairs as records), so
// that eligibility and deletion by subject scope reach intentions the way they reach records.
{{intention_scope}}
CREATE (i:Intention)
SET i = $props
CREATE (i)-[:IN_SCOPE]->(s)
RETURN i.id AS id
