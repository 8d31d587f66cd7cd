// Redact terms in place (docs/spec/deletion.md): rows carry the redacted fields computed by the
// client (content, asserted value, provenance, metadata) and the fingerprints of the result;
// a LangGraph item's filter facts (lg_facts, lg_num_paths, lg_nums) are its redacted value's
// (null, and so absent, for any other record).
// Only records this request has not disposed of yet are touched.
MATCH (req:DeletionRequest {id: $request_id})
USING INDEX SEEK req:DeletionRequest(id)
UNWIND $rows AS row
MATCH (r:Record {id: row.id})
USING INDEX SEEK r:Record(id)
WHERE NOT EXISTS { (req)-[:DISPOSED]->(r) } AND NOT coalesce(r.erased, false)
SET r.content = row.content, r.asserted_value = row.asserted_value,
    r.provenance_json = row.provenance_json, r.source = row.source,
    r.metadata_json = row.metadata_json, r.fingerprint = row.fingerprint,
    r.dedup_key = row.dedup_key, r.lg_facts = row.lg_facts, r.lg_num_paths = row.lg_num_paths,
    r.lg_nums = row.lg_nums, r.redacted_at = $at, r.redacted_by_request = $request_id,
    r.rev = coalesce(r.rev, 0) + 1
WITH r
CALL (r) {
  {{scope_bump}}
}
RETURN count(r) AS redacted
