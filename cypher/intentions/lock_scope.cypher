// Take the write lock of the Scope an intention is to be stored in (made as
// intentions/create makes it when it is new), so that two calls storing the same intention
// "unless one is pending" queue here and the second sees the first's intention
// (docs/spec/intentions.md#exactly-once). Run first in that transaction.
{{intention_scope}}
SET s._lock = true
RETURN s.key AS key
