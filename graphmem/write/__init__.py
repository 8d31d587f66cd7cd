"""The write path: the write policy (docs/spec/write-path.md) and the lifecycle transitions."""
