"""The read path (docs/spec/read-path.md): decision state, triggers, query building, rankers,
conflicts and their resolution, partners, budget, rendering, and the pipeline itself."""
