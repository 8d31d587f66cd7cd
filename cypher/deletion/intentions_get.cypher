// The action text of intentions ($ids) that are not erased, to be redacted by the client.
UNWIND $ids AS id
MATCH (i:Intention {id: id})
USING INDEX SEEK i:Intention(id)
WHERE NOT coalesce(i.erased, false)
RETURN i.id AS id, i.action AS action
