"""The local server's launch settings, checked before anything starts
(docs/operations.md#where-neo4j-comes-from): the Bolt port, the page cache and the JVM heap of
every server the launcher runs (``graphmem db start``, a command's own server, a test's
:class:`~graphmem.db.ephemeral.EphemeralServer`) and the heap of Neo4j's import tool.

A value the JVM or Neo4j would refuse only after a start of several seconds, or would take
wrongly (port 0 binds a random port the server then does not report), is a
:class:`~graphmem.errors.ValidationError` here, before a process is spawned.
"""

from __future__ import annotations

import re

from graphmem.errors import ValidationError

__all__ = ["MAX_HEAP_BYTES", "MAX_PAGECACHE_MB", "MIN_HEAP_BYTES", "MIN_PAGECACHE_MB",
           "check_launch", "heap_bytes", "heap_flags"]

MIN_HEAP_BYTES = 128 << 20
"""The smallest heap a launcher's server is started with (Neo4j 5.26 runs in 128 MiB)."""
MAX_HEAP_BYTES = 1 << 40
"""The largest heap taken (1 TiB): a larger one is a typo, not a machine."""
MIN_PAGECACHE_MB = 8
"""The smallest page cache taken, in MiB (Neo4j refuses 0)."""
MAX_PAGECACHE_MB = 1 << 20
"""The largest page cache taken, in MiB (1 TiB)."""

_HEAP = re.compile(r"([0-9]{1,15})([kKmMgGtT]?)")
_SCALE = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def heap_bytes(heap: str) -> int:
    """The size a JVM heap setting names, in bytes.

    Args:
        heap: digits and an optional unit ``k``, ``m``, ``g`` or ``t`` (``"1g"``, ``"768m"``).

    Raises:
        ValidationError: not such a string, or a size outside
            [:data:`MIN_HEAP_BYTES`, :data:`MAX_HEAP_BYTES`].
    """
    match = _HEAP.fullmatch(heap) if isinstance(heap, str) else None
    if match is None:
        raise ValidationError(f"a heap must look like '1g' or '768m', got {heap!r}")
    size = int(match.group(1)) * _SCALE[match.group(2).lower()]
    if not MIN_HEAP_BYTES <= size <= MAX_HEAP_BYTES:
        raise ValidationError(f"a heap must be between 128m and 1t, got {heap!r}")
    return size


def heap_flags(heap: str) -> list[str]:
    """The JVM's ``-Xms``/``-Xmx`` options for ``heap`` (checked by :func:`heap_bytes`): the
    heap starts at the whole of it when under 512 MiB, else at 512 MiB.

    Raises:
        ValidationError: as :func:`heap_bytes`.
    """
    initial = heap if heap_bytes(heap) < 512 << 20 else "512m"
    return [f"-Xms{initial}", f"-Xmx{heap}"]


def check_launch(*, port: int | None, pagecache_mb: int, heap: str) -> None:
    """Check a server's launch settings before it starts.

    Args:
        port: the Bolt port, 1-65535 (None: the launcher picks one). pagecache_mb: the page
            cache in MiB, :data:`MIN_PAGECACHE_MB` to :data:`MAX_PAGECACHE_MB`. heap: as
            :func:`heap_bytes`.

    Raises:
        ValidationError: a value out of its range or of the wrong type.
    """
    if port is not None and (not _is_int(port) or not 1 <= port <= 65535):
        raise ValidationError(f"a Bolt port must be 1-65535 (or none: 7687 when free, else "
                              f"any free one), got {port!r}")
    if not _is_int(pagecache_mb) or not MIN_PAGECACHE_MB <= pagecache_mb <= MAX_PAGECACHE_MB:
        raise ValidationError(f"the page cache must be {MIN_PAGECACHE_MB} to "
                              f"{MAX_PAGECACHE_MB} MiB, got {pagecache_mb!r}")
    heap_bytes(heap)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
