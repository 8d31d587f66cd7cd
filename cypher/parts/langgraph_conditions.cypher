// Part of queries, not a query: `{{langgraph_conditions}}` stands for "the LangGraph item `r`
// passes every value condition of $conditions" (a search's filter, compiled by
// graphmem.db.langgraph_shape.compile_filter): [{op, fact, path, num, dicts}]; op eq or ne tests
// a digest among r.lg_facts, gt/gte/lt/lte the float at a path digest among
// r.lg_num_paths/r.lg_nums, false never holds; each digest of `dicts` must be among the facts.
all(c IN $conditions WHERE all(d IN c.dicts WHERE d IN r.lg_facts) AND CASE c.op
    WHEN 'eq' THEN c.fact IN r.lg_facts
    WHEN 'ne' THEN NOT c.fact IN r.lg_facts
    WHEN 'false' THEN false
    ELSE any(i IN range(0, size(r.lg_num_paths) - 1) WHERE r.lg_num_paths[i] = c.path
      AND CASE c.op WHEN 'gt' THEN r.lg_nums[i] > c.num WHEN 'gte' THEN r.lg_nums[i] >= c.num
                    WHEN 'lt' THEN r.lg_nums[i] < c.num ELSE r.lg_nums[i] <= c.num END)
  END)
