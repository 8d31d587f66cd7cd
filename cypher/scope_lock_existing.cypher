// Write-lock an existing Scope node before a write into it (see scope_lock.cypher). MATCH then
// SET takes the node's exclusive lock directly; MERGE on an existing node would first take a
// shared lock and then upgrade it, which deadlocks when two writers upgrade at once.
MATCH (s:Scope {key: $scope_key})
SET s.write_seq = coalesce(s.write_seq, 0) + 1
RETURN s.write_seq AS seq
