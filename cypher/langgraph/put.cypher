// LangGraph store: a batch of puts and deletes in one statement (one round trip, one commit),
// with graphmem's guarantees: every write of a tenant under its lock, a put of a live key
// supersedes its version (the edge and a 'superseded' transition), a delete retracts it (a
// tombstone and a 'retract' transition), each new version with its PERSIST write decision.
// 1. Lock each tenant's tenant-wide ScopeVersion ($locks, sorted by key: a fixed order, no
//    deadlocks), lock then read (graphmem.db.slots); the lock is held to the commit.
// 2. Under the lock, the newest version of each key (ids share a prefix and end in a
//    zero-padded sequence number); live: eligible and ACTIVE for the writer in its own
//    namespace (parts/record_active); open: neither retracted nor erased.
// 3. A key held open above $clearance: nothing is written (`forbidden` comes back true).
// 4. Else reserve each tenant's sequence numbers and write: a new version's id is its key's
//    prefix and the key's next number (one past its newest version's, whatever became of that
//    one: an id counts only its own key's writes, never the tenant's, which another user
//    sharing the tenant must not learn: docs/spec/eligibility.md#confinement); it keeps the
//    tenant's number of its key's first put, and that put's time
//    (lg_chain_seq, lg_created_at) while the key stays live; its lg_order (langgraph/search)
//    is the Scope's langgraph_key, then both numbers. New Scopes are stamped with the number
//    that orders namespaces. Each changed record bumps its Scope's version (parts/scope_bump).
// $locks: [{key, tenant, pairs, count}]; $puts: [{tenant, prefix, delete, seq_offset,
// ns_offset, created_at (ISO text), scope: {key, tenant, pairs, langgraph_key}, row: a
// records/create row without its id, vectors: [{field, vector, zero}] or null}] (each vector
// an LgVector node that EMBEDS the new version: embeddings stay with their version);
// $clearance: rank; $now: UTC datetime; $actor, $by: who (transitions; write decisions);
// $put_reason, $delete_reason, $superseded_reason.
CALL () {
  UNWIND $locks AS row
  MERGE (ts:Scope {key: row.key})
    ON CREATE SET ts.tenant = row.tenant, ts.pairs = row.pairs, ts.epoch = randomUUID()
  MERGE (tv:ScopeVersion {key: row.key})
    ON CREATE SET tv.epoch = randomUUID(), tv.tenant = row.tenant
  SET tv.locked = true
  REMOVE tv.locked
  RETURN collect(tv) AS locked
}
CALL () {
  UNWIND $puts AS u
  CALL (u) {
    OPTIONAL MATCH (h:Record)
    WHERE h.id STARTS WITH u.prefix
    RETURN h ORDER BY h.id DESC LIMIT 1
  }
  OPTIONAL MATCH (h)-[:IN_SCOPE]->(hs:Scope)
  WITH u, h AS r, hs.tenant AS q_tenant, hs.pairs AS q_pairs, $now AS now
  RETURN collect({u: u, h: r, live: coalesce(r IS NOT NULL AND {{record_active}}, false),
                  open: r IS NOT NULL AND NOT coalesce(r.retracted, false)
                        AND NOT coalesce(r.erased, false)}) AS heads
}
WITH locked, heads,
     any(x IN heads WHERE x.open AND NOT x.h.sensitivity_rank <= $clearance) AS forbidden
CALL (locked, heads, forbidden) {
  WITH locked, heads WHERE NOT forbidden
  CALL (locked) {
    UNWIND range(0, size(locked) - 1) AS i
    WITH $locks[i] AS row, locked[i] AS tv
    WITH row, tv, coalesce(tv.langgraph_seq, 0) AS base
    SET tv.langgraph_seq = base + row.count
    RETURN collect([row.tenant, base]) AS bases
  }
  UNWIND heads AS x
  WITH x.u AS u, x.h AS h, x.live AS live, x.open AS open,
       [b IN bases WHERE b[0] = x.u.tenant][0][1] AS base
  CALL (u, h, open) {
    WITH h WHERE u.delete AND open
    SET h.retracted = true, h.retracted_by = $actor, h.retracted_reason = $delete_reason,
        h.retracted_at = $now, h.rev = coalesce(h.rev, 0) + 1
    CREATE (:Transition {record_id: h.id, kind: 'retract', by: $actor, reason: $delete_reason,
                         at: $now})-[:ON]->(h)
    WITH h AS r
    CALL (r) {
      {{scope_bump}}
    }
  }
  CALL (u, h, live, open, base) {
    WITH u, h, live, open, base WHERE NOT u.delete
    MERGE (s:Scope {key: u.scope.key})
      ON CREATE SET s.tenant = u.scope.tenant, s.pairs = u.scope.pairs, s.epoch = randomUUID(),
                    s.langgraph_seq = base + u.ns_offset, s.langgraph_key = u.scope.langgraph_key
    FOREACH (_ IN CASE WHEN s.langgraph_key IS NULL THEN [1] ELSE [] END |
      SET s.langgraph_key = u.scope.langgraph_key)
    WITH u, h, live, open, s, base + u.seq_offset AS seq
    WITH u, h, open, s, seq, live AND h.lg_chain_seq IS NOT NULL AS kept,
         CASE WHEN h IS NULL THEN 1 ELSE toInteger(right(h.id, 16)) + 1 END AS version
    WITH u, h, open, s, seq, u.prefix + right('0000000000000000' + toString(version), 16) AS rid,
         CASE WHEN kept THEN h.lg_chain_seq ELSE seq END AS chain_seq,
         CASE WHEN kept THEN h.lg_created_at ELSE u.created_at END AS chain_created
    CREATE (r:Record)-[:IN_SCOPE]->(s)
    SET r = u.row.props, r.id = rid, r.created_at = datetime(u.row.times.created_at),
        r.valid_from = datetime(u.row.times.valid_from),
        r.expires_at = datetime(u.row.times.expires_at),
        r.supersedes = CASE WHEN open THEN [h.id] ELSE [] END,
        r.lg_chain_seq = chain_seq, r.lg_created_at = chain_created,
        r.lg_order = s.langgraph_key + right('0000000000000000' + toString(chain_seq), 16)
                     + ':' + right('0000000000000000' + toString(seq), 16)
    CREATE (:WriteDecision {record_id: rid, tenant: u.scope.tenant, disposition: 'PERSIST',
                            reason: $put_reason, at: $now, by: $by})-[:DECIDED]->(r)
    WITH u, r, h, open
    CALL (r, u) {
      UNWIND coalesce(u.vectors, []) AS e
      CREATE (:LgVector {record_id: r.id, tenant: u.scope.tenant, field: e.field,
                         vector: e.vector, zero: e.zero})-[:EMBEDS]->(r)
    }
    WITH r, h, open
    CALL (r, h, open) {
      WITH r, h WHERE open
      CREATE (r)-[:SUPERSEDES]->(h)
      CREATE (:Transition {record_id: h.id, kind: 'superseded', by: $actor,
                           reason: $superseded_reason + ' (successor ' + r.id + ')',
                           at: $now})-[:ON]->(h)
    }
    CALL (r) {
      {{scope_bump}}
    }
  }
}
RETURN forbidden
