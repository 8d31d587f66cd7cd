"""The write path: the write policy (SPEC section 6) and the lifecycle transitions."""
