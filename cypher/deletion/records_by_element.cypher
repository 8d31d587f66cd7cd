// Live records by element id ($eids), for redaction through the record model (their
// fingerprints follow the redacted text).
UNWIND $eids AS eid
MATCH (r:Record) WHERE elementId(r) = eid AND NOT coalesce(r.erased, false)
RETURN eid, r {.*} AS record
