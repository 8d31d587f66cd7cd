// Part of queries, not a query: `{{write_fresh}}`, after {{write_probe}}, keeps its row only
// when the proposal can be stored with the decision the client made from the proposal alone
// (graphmem.write.admission): every slot locked, no active duplicate, its id not stored, every
// id it references stored and not erased, and its Assertion group present. Reads the write from
// `w`, as {{write_probe}} does, and keeps it.
WITH w, locked, existing, duplicates
WHERE locked = size(w.slots) AND size(duplicates) = 0
  AND none(e IN existing WHERE e.id = w.row.props.id)
  AND size([e IN existing WHERE NOT coalesce(e.erased, false)]) = size(w.ids) - 1
  AND (w.gkey IS NULL OR EXISTS { MATCH (:Assertion {gkey: w.gkey}) })
