// Store the ids of a CandidateSet that retrieval/log found without them ($digest, $ids):
// whole, so it depends on no other set.
MATCH (cs:CandidateSet {digest: $digest})
USING INDEX SEEK cs:CandidateSet(digest)
SET cs.ids = $ids, cs.size = size($ids), cs.base_digests = null, cs.added_ids = null,
  cs.removed_ids = null
RETURN cs.size AS size
