// The attribution log behind each funnel trial (docs/spec/evaluation.md): per target {task_id,
// record_id, retrieval_id}, whether the record exists, its write decisions, the logged
// retrieval with its candidate set (whole, or a delta with the sets of its chain: see
// retrieval/log), and the exposures and uses of that retrieval that name the record.
UNWIND $targets AS t
OPTIONAL MATCH (r:Record {id: t.record_id})
USING INDEX SEEK r:Record(id)
OPTIONAL MATCH (q:Retrieval {id: t.retrieval_id})
USING INDEX SEEK q:Retrieval(id)
OPTIONAL MATCH (cs:CandidateSet {digest: q.candidate_digest})
USING INDEX SEEK cs:CandidateSet(digest)
RETURN t.task_id AS task_id, t.record_id AS record_id, r IS NOT NULL AS record_exists,
  COLLECT { MATCH (w:WriteDecision {record_id: t.record_id}) RETURN w.disposition }
    AS dispositions,
  q {.*} AS retrieval,
  cs {.digest, .ids, .base_digests, .added_ids, .removed_ids} AS candidate_set,
  COLLECT { MATCH (b:CandidateSet) WHERE b.digest IN coalesce(cs.base_digests, [])
            RETURN b {.digest, .ids, .base_digests, .added_ids, .removed_ids} } AS chain,
  COLLECT { MATCH (e:Exposure)-[:OF]->(q) WHERE t.record_id IN e.memory_ids
            RETURN e.action_id } AS exposures,
  COLLECT { MATCH (u:Use)-[:OF]->(q) WHERE t.record_id IN u.memory_ids
            RETURN {action_id: u.action_id, helped: u.helped} } AS uses
