"""The launcher's class-data archive: the classes a Neo4j start loads, recorded once per
machine so that later starts map them instead of loading them again.

A start of the local server loads and verifies some 10,000 classes from the Neo4j jars;
that is most of its CPU before the store opens. HotSpot's application class-data sharing
(AppCDS) can record the classes one run loaded into an archive
(``-XX:ArchiveClassesAtExit``, written when that JVM exits) and map the archive into every
later JVM (``-XX:SharedArchiveFile``). :func:`record_class_data` makes that run: a
throwaway server with authentication on, a client that connects over Bolt and creates
graphmem's schema, then a clean stop. From then on every server the launcher starts, the
local server, a command's own, the test suite's, maps the archive
(:func:`graphmem.db.launcher_classes.launcher_entry` adds the flag when the archive is
there). ``graphmem db fetch`` records it; without it a start is as before.

The archive serves only the JVM build and class path that recorded it: it sits beside the
compiled launcher (so a new ``Launcher.java`` or Neo4j version gets a new one) and is named
by the ``java`` executable (so a JDK update does too). Should it still not match, the JVM
says so on the launcher's output and starts without it. Several processes may record at
once: each writes its own file and renames it into place
(docs/operations.md#where-neo4j-comes-from).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path

from graphmem.db.ephemeral import EphemeralServer
from graphmem.db.launcher import ensure_jars, java_executable, launcher_dir
from graphmem.db.launcher_classes import class_data_file, compiled_classes
from graphmem.db.settings import open_driver
from graphmem.db.store import Neo4jStore
from graphmem.errors import GraphmemError

__all__ = ["record_class_data"]


def record_class_data(lib_dir: Path | None = None) -> Path | None:
    """Record the launcher's class-data archive, unless this JVM has one already.

    Takes one server start and stop with recording on (about 30 s on a 2-core machine).

    Args:
        lib_dir: the Neo4j jars (default: the shared ones, fetched if missing).

    Returns:
        The archive, or None when it cannot be had: no compiled launcher (no ``javac``), the
        server did not start, or the JVM wrote no archive.

    Raises:
        DatabaseUnavailableError: Java is missing, or the jars cannot be fetched.
    """
    lib_dir = ensure_jars(lib_dir)
    java = java_executable()
    classes = compiled_classes(java, lib_dir, launcher_dir() / "Launcher.java")
    archive = None if classes is None else class_data_file(java, classes)
    if archive is None or archive.is_file():
        return archive
    part = archive.with_name(f".{archive.name}.{uuid.uuid4().hex}")
    try:
        recording = ["-XX:TieredStopAtLevel=1", f"-XX:ArchiveClassesAtExit={part}",
                     "-Xlog:cds=off", "-Xlog:cds+dynamic=off"]
        with EphemeralServer(lib_dir=lib_dir, jvm_options=recording) as server, \
                open_driver(server.settings) as driver:
            Neo4jStore(driver, database=server.settings.database).ensure_schema()
        # the JVM wrote the archive as it exited, before close() returned
        if part.is_file():
            os.replace(part, archive)
    except (GraphmemError, OSError):
        pass
    finally:
        with contextlib.suppress(OSError):
            part.unlink()
    return archive if archive.is_file() else None
