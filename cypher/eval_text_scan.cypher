// Where erased terms survive in what one evaluation run wrote: every string (or
// list-of-strings) property, of every node of the run (the selection of eval_cleanup, plus the
// exposures and uses of its retrievals) and of every relationship starting at one, that holds
// one of $terms (lower-cased). Found generically with keys(n) and n[key], apart from the
// deletion code's own scan, for the "redaction leaves free text" fault. One row:
// 'Label.key' places, distinct.
CALL () {
  MATCH (n:Record|Intention|Scope|Retrieval|CandidateSet) WHERE n.tenant STARTS WITH $prefix
  RETURN n
  UNION
  MATCH (n:WriteDecision) WHERE n.record_id STARTS WITH $prefix
  RETURN n
  UNION
  MATCH (n:Transition) WHERE coalesce(n.record_id, n.intention_id) STARTS WITH $prefix
  RETURN n
  UNION
  MATCH (n:DeletionRequest) WHERE n.requested_by STARTS WITH $prefix
  RETURN n
  UNION
  MATCH (n:Exposure|Use)-[:OF]->(q:Retrieval) WHERE q.tenant STARTS WITH $prefix
  RETURN n
}
CALL (n) {
  UNWIND keys(n) AS key
  WITH n, key, n[key] AS v
  WHERE any(s IN CASE WHEN v IS :: STRING THEN [v]
                      WHEN v IS :: LIST<STRING NOT NULL> THEN v ELSE [] END
            WHERE any(t IN $terms WHERE toLower(s) CONTAINS t))
  RETURN labels(n)[0] + '.' + key AS place
  UNION ALL
  MATCH (n)-[e]->()
  UNWIND keys(e) AS key
  WITH e, key, e[key] AS v
  WHERE any(s IN CASE WHEN v IS :: STRING THEN [v]
                      WHEN v IS :: LIST<STRING NOT NULL> THEN v ELSE [] END
            WHERE any(t IN $terms WHERE toLower(s) CONTAINS t))
  RETURN type(e) + '.' + key AS place
}
RETURN collect(DISTINCT place) AS places
