// Part of queries, not a query: `{{visible_scope_versions}}` matches each visible Scope `s`
// ({{visible_scopes}}) with what versions it: its ScopeVersion `sv` (none for a Scope never
// bumped) and its write slots' versions `wslots` ({{write_slot_versions}}); a query reads the
// version as [s.key, coalesce(sv.epoch, s.epoch, ''), coalesce(sv.rev, s.rev, 0), wslots].
{{visible_scopes}}
OPTIONAL MATCH (sv:ScopeVersion {key: s.key})
USING INDEX SEEK sv:ScopeVersion(key)
{{write_slot_versions}}
