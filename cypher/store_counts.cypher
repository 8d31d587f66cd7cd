// How many nodes of each graphmem label the database holds.
MATCH (n)
WHERE n:Record OR n:Scope OR n:Intention OR n:Retrieval OR n:Transition OR n:WriteDecision
   OR n:DeletionRequest OR n:Exposure OR n:Use OR n:CandidateSet
RETURN labels(n)[0] AS label, count(*) AS n
