// Versions of the Scopes a query scope sees: [key, epoch, rev] (see candidates.cypher). If
// they equal the versions a cached candidates answer was computed at, and $now lies in its
// validity window, that answer is still exact. One index seek, no record is read.
MATCH (s:Scope {tenant: $tenant})
WHERE all(p IN s.pairs WHERE p IN $pairs)
OPTIONAL MATCH (sv:ScopeVersion {key: s.key})
RETURN collect([s.key, coalesce(sv.epoch, s.epoch, ''), coalesce(sv.rev, s.rev, 0)]) AS versions
