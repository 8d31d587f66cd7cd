// Create the Scope nodes a batch of records needs (one row per distinct scope).
UNWIND $scopes AS s
MERGE (sc:Scope {key: s.key})
  ON CREATE SET sc.tenant = s.tenant, sc.pairs = s.pairs, sc.epoch = randomUUID()
RETURN count(sc) AS scopes
