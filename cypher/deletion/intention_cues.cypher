// The tenant and cue kind of intentions ($eids: element ids) whose cue text a redaction
// changes, so that their cue digests follow (graphmem.db.index_key).
UNWIND $eids AS eid
MATCH (i:Intention) WHERE elementId(i) = eid
RETURN eid, i.tenant AS tenant, i.trigger_kind AS kind
