"""Deletion walks (SPEC section 7): plan, apply, verify, their vocabulary and the
``graphmem delete`` commands."""
