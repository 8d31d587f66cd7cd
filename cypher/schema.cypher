// Constraints and indexes, idempotently: all in one transaction, or each in one of its own
// when that fails (graphmem.db.base.StoreBase.ensure_schema).
CREATE CONSTRAINT record_id IF NOT EXISTS FOR (r:Record) REQUIRE r.id IS UNIQUE;
CREATE CONSTRAINT scope_key IF NOT EXISTS FOR (s:Scope) REQUIRE s.key IS UNIQUE;
CREATE CONSTRAINT scope_version_key IF NOT EXISTS FOR (v:ScopeVersion) REQUIRE v.key IS UNIQUE;
CREATE CONSTRAINT assertion_group IF NOT EXISTS FOR (a:Assertion) REQUIRE a.gkey IS UNIQUE;
CREATE CONSTRAINT write_slot_key IF NOT EXISTS FOR (l:WriteSlot) REQUIRE l.key IS UNIQUE;
CREATE CONSTRAINT intention_id IF NOT EXISTS FOR (i:Intention) REQUIRE i.id IS UNIQUE;
CREATE CONSTRAINT retrieval_id IF NOT EXISTS FOR (q:Retrieval) REQUIRE q.id IS UNIQUE;
CREATE CONSTRAINT candidate_set_digest IF NOT EXISTS FOR (c:CandidateSet) REQUIRE c.digest IS UNIQUE;
CREATE CONSTRAINT deletion_request_id IF NOT EXISTS FOR (d:DeletionRequest) REQUIRE d.id IS UNIQUE;
CREATE CONSTRAINT erasure_chain_tenant IF NOT EXISTS FOR (c:ErasureChain) REQUIRE c.tenant IS UNIQUE;
CREATE CONSTRAINT graphmem_key_name IF NOT EXISTS FOR (k:GraphmemKey) REQUIRE k.name IS UNIQUE;
CREATE INDEX scope_tenant IF NOT EXISTS FOR (s:Scope) ON (s.tenant);
// No index holds text that an erasure removes or redacts: a range index keeps a removed key's
// bytes in its file (graphmem.db.index_key). Assertion groups are found by a digest (gkey),
// threads by a digest (thread_key), intention cues by a keyed digest (cue_digest); the
// clear-text indexes of earlier versions go.
DROP INDEX record_tenant_asserts IF EXISTS;
DROP INDEX record_thread IF EXISTS;
CREATE INDEX record_thread_key IF NOT EXISTS FOR (r:Record) ON (r.thread_key, r.position);
CREATE INDEX record_dedup IF NOT EXISTS FOR (r:Record) ON (r.dedup_key);
// What changed in a scope since a version (candidates_delta.cypher): a record's last stamp by
// its ScopeVersion (epoch, rev) and by its policy write's WriteSlot (epoch, seq). Random epochs,
// no text.
CREATE INDEX record_scope_stamp IF NOT EXISTS FOR (r:Record) ON (r.sepoch, r.stamp);
CREATE INDEX record_slot_stamp IF NOT EXISTS FOR (r:Record) ON (r.wepoch, r.wseq);
DROP INDEX intention_cue IF EXISTS;
CREATE INDEX intention_cue_digest IF NOT EXISTS FOR (i:Intention) ON (i.cue_digest);
CREATE INDEX transition_record IF NOT EXISTS FOR (t:Transition) ON (t.record_id);
CREATE INDEX write_decision_record IF NOT EXISTS FOR (w:WriteDecision) ON (w.record_id);
CREATE INDEX write_decision_tenant IF NOT EXISTS FOR (w:WriteDecision) ON (w.tenant);
CREATE INDEX retrieval_tenant IF NOT EXISTS FOR (q:Retrieval) ON (q.tenant);
CREATE INDEX deletion_request_digest IF NOT EXISTS FOR (d:DeletionRequest) ON (d.digest);
// The LangGraph store's search order (graphmem.integrations.langgraph): a digest of the item's
// namespace Scope, then sequence numbers; no text of the item.
CREATE INDEX record_langgraph_order IF NOT EXISTS FOR (r:Record) ON (r.lg_order);
// The LangGraph store's embeddings (graphmem.integrations.langgraph.vectors): one LgVector node
// per embedded field of an item's version, EMBEDS its record. No fixed dimension: stores whose
// models differ share the index, and a query meets only vectors of its own length. Not quantized:
// the nearest candidates it gives are rescored exactly (cypher/langgraph/vectors/nearest.cypher).
CREATE VECTOR INDEX langgraph_vector IF NOT EXISTS FOR (v:LgVector) ON (v.vector)
  OPTIONS {indexConfig: {`vector.similarity_function`: 'cosine',
                         `vector.quantization.enabled`: false}}
