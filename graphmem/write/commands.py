"""``graphmem import FILE.jsonl``: load records without policy, for data teams.

The whole file is validated first (every field, sizes, lineage inside the file, ids and
references against the store); a bad line exits 2 naming it, and nothing is written. Then
the records load in ``UNWIND`` batches, one transaction each, with a progress bar (records
and records/s) on stderr, and a summary: records created and already present (identical
records are skipped, so re-running an import is safe). Exit codes (:mod:`graphmem.terminal`):
2 bad input, 3 no database.
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
from graphmem.db.ops.admission import Neo4jWrites
from graphmem.errors import GraphmemError
from graphmem.models import MemoryRecord
from graphmem.terminal import checked_output, console, emit_json, err_console, fail
from graphmem.write.imports import IMPORT_BATCH, load_records, read_records

__all__ = ["import_command"]


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
) -> None:
    """Import records without policy (imports, restores): validate the whole file, then
    load it in batches; prints how many records were created and how many were present."""
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
        "records_per_s": round(len(records) / seconds) if seconds > 0 else None,
    }
    emit_json(summary, as_json, output)
    if not as_json:
        console.print(f"{file.name}: {len(records)} records; created {created}, already "
                      f"present {len(records) - created} ({seconds:.1f} s)", highlight=False)


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
