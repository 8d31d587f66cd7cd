// The stored properties of the intentions ($eids: element ids) that are not erased and whose
// action or cue a redaction changes, so that their fingerprints and cue digests follow the
// redacted text (graphmem.deletion.redaction.redact_intention; graphmem.db.index_key).
UNWIND $eids AS eid
MATCH (i:Intention) WHERE elementId(i) = eid AND NOT coalesce(i.erased, false)
RETURN eid, i {.*} AS intention
