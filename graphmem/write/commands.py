"""``graphmem import FILE.jsonl``: load records without policy, for data teams.

The whole file is validated first (every field, sizes, lineage inside the file, ids and
references against the store); a bad line exits 2 naming it, and nothing is written. Then
the records load in ``UNWIND`` batches, one transaction each, with a progress bar (records
and records/s) on stderr, and a summary: records created and already present (identical
records are skipped, so re-running an import is safe). Exit codes (:mod:`graphmem.terminal`):
2 bad input, 3 no database.

``--initial``: an empty local store's first load, offline, through Neo4j's import tool
(:mod:`graphmem.write.initial`; docs/operations.md#initial-load). Only a store graphmem runs itself
(``graphmem db start``'s home): with ``NEO4J_URI`` set the command refuses. The file is checked
whole first, as without ``--initial`` (and written as the tool's CSVs, in a process per CPU);
then, if the local server runs or its home holds a database, the store must be empty (nothing
but what opening it made) and no other process may use it: the server is stopped for the
load and started again after it, with the schema applied, and stopped once more unless
``graphmem db start`` started it. A store holding data, or one in use, is refused and left as
it was (exit 2).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from graphmem.client import Memory, store_of
from graphmem.db import server
from graphmem.db.ops.admission import Neo4jWrites
from graphmem.db.settings import ConnectionSettings, server_home
from graphmem.errors import GraphmemError, StoreNotEmptyError
from graphmem.models import MemoryRecord
from graphmem.terminal import checked_output, console, emit_json, err_console, fail
from graphmem.write.imports import IMPORT_BATCH, load_records, read_records
from graphmem.write.initial import (
    check_empty,
    discard,
    finish_initial,
    has_database,
    import_prepared,
    prepare_initial,
)

__all__ = ["import_command", "initial_load"]


def import_command(
    file: Annotated[Path, typer.Argument(
        help="JSON Lines, one record per line (docs/spec/records.md fields).",
        exists=True, dir_okay=False, readable=True)],
    batch_size: Annotated[int, typer.Option(
        min=1, help="Records per transaction.")] = IMPORT_BATCH,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the summary as JSON on stdout (and nothing else there).")] = False,
    output: Annotated[Path | None, typer.Option(
        "-o", "--output", callback=checked_output,
        help="Write the summary (JSON) to this file.")] = None,
    initial: Annotated[bool, typer.Option(
        "--initial", help="First load of an EMPTY local store (`graphmem db start`'s), "
        "offline with Neo4j's import tool (docs/operations.md#initial-load): the file is "
        "checked as without it, a store holding data or a NEO4J_URI server is refused, and "
        "a running local server is stopped for the load and started again after it.")
    ] = False,
) -> None:
    """Import records without policy (imports, restores): validate the whole file, then
    load it in batches; prints how many records were created and how many were present."""
    if initial:
        _initial(file, as_json, output)
        return
    try:
        with Memory.connect() as memory:
            writes = Neo4jWrites(store_of(memory))
            with err_console.status(f"Validating {file.name} ..."):
                records = read_records(writes, file)
            started = time.perf_counter()
            created = _load(writes, records, batch_size)
            seconds = time.perf_counter() - started
    except GraphmemError as exc:
        raise fail(exc) from None
    summary: dict[str, Any] = {
        "file": str(file), "records": len(records), "created": created,
        "already_present": len(records) - created, "batch_size": batch_size,
        "seconds": round(seconds, 3),
        "records_per_s": _rate(len(records), seconds),
    }
    emit_json(summary, as_json, output)
    if not as_json:
        console.print(f"{file.name}: {len(records)} records; created {created}, already "
                      f"present {len(records) - created} ({seconds:.1f} s)", highlight=False)


def _initial(file: Path, as_json: bool, output: Path | None) -> None:
    """``--initial`` (see the module docstring)."""
    try:
        summary = initial_load(file)
    except GraphmemError as exc:
        raise fail(exc) from None
    emit_json(summary, as_json, output)
    if not as_json:
        console.print(f"{file.name}: {summary['records']} records loaded into an empty store "
                      f"({summary['seconds']:.1f} s, {summary['records_per_s']} records/s)",
                      highlight=False)


def _load(writes: Neo4jWrites, records: Sequence[MemoryRecord], batch_size: int) -> int:
    """Write validated records in batches under a progress bar; how many were created."""
    columns = (TextColumn("importing"), BarColumn(), MofNCompleteColumn(),
               TextColumn("records"), TextColumn("{task.fields[rate]} records/s"),
               TimeElapsedColumn())
    created = 0
    with Progress(*columns, console=err_console) as bar:
        task = bar.add_task("import", total=len(records), rate="-")
        started, done = time.perf_counter(), 0
        for ids in load_records(writes, records, batch_size=batch_size):
            created += len(ids)
            done = min(done + batch_size, len(records))
            elapsed = time.perf_counter() - started
            bar.update(task, completed=done,
                       rate=f"{done / elapsed:,.0f}" if elapsed > 0 else "-")
    return created


def _rate(records: int, seconds: float) -> float | None:
    """Records per second: whole above 10, else to a tenth (12 records in 48 s: 0.2, not 0)."""
    if seconds <= 0:
        return None
    rate = records / seconds
    return round(rate) if rate >= 10 else round(rate, 1)


def initial_load(file: Path) -> dict[str, Any]:
    """``--initial``: load ``file`` into the empty local store, as the module docstring says;
    the summary the command prints.

    Raises:
        StoreNotEmptyError: ``NEO4J_URI`` names another server, the store holds data, or
            another process uses the local server (a client holds a lease on it); nothing is
            written.
        ValidationError (and subclasses): a line breaks docs/spec/records.md (nothing is
            written). StoreError: the import tool failed. DatabaseUnavailableError: no Java,
            or the server did not start.
    """
    if ConnectionSettings.from_env() is not None:
        raise StoreNotEmptyError(
            "--initial loads only the store graphmem runs itself (`graphmem db start`); "
            "NEO4J_URI names another server: import into it without --initial")
    started = time.perf_counter()
    running = server.status()
    home = running.home if running is not None else server_home()
    port = running.port if running is not None else None
    with err_console.status(f"Validating {file.name} and writing the import tool's files ..."):
        files = prepare_initial(file, home)
    try:
        overwrite = running is not None or has_database(home)
        if overwrite:
            with err_console.status("Checking that the store is empty ..."):
                info = running or server.start(home)
                try:
                    with Memory.connect(info.settings, start_if_needed=False) as memory:
                        check_empty(store_of(memory))
                except GraphmemError:
                    if running is None:  # started only to look: not left running
                        server.stop_unused()
                    raise
                users = server.stop_unused()
                if users:  # a client may write after the check: its writes would be lost
                    raise StoreNotEmptyError(
                        f"{users} other process{'es' if users != 1 else ''} use the local "
                        "server: --initial replaces its store, so close "
                        f"{'them' if users != 1 else 'it'} first (nothing was written)")
        with err_console.status(f"Loading {files.records} records with the Neo4j import "
                                "tool ..."):
            load = import_prepared(files, home, overwrite=overwrite)
    finally:
        discard(files)
    with err_console.status("Starting Neo4j and applying the schema ..."):
        info = server.start(home, port)
        try:
            with Memory.connect(info.settings, start_if_needed=False) as memory:
                finish_initial(store_of(memory), load)
        finally:
            if running is None or not running.kept:  # no server left running by a command
                server.stop_unused()
    seconds = time.perf_counter() - started
    return {"file": str(file), "records": load.records, "created": load.records,
            "already_present": 0, "scopes": load.scopes, "relationships": load.relationships,
            "initial": True, "home": str(home), "seconds": round(seconds, 3),
            "records_per_s": _rate(load.records, seconds)}
