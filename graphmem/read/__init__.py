"""The read path (SPEC section 5): decision state, triggers, query building, rankers,
conflicts and their resolution, partners, budget, rendering, and the pipeline itself."""
