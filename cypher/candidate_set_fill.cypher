// Store the ids of a CandidateSet that retrieval_log found without them ($digest, $ids).
MATCH (cs:CandidateSet {digest: $digest})
SET cs.ids = $ids, cs.size = size($ids)
RETURN cs.size AS size
