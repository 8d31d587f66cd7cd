"""Bulk imports without policy (imports, restores; docs/spec/records.md): JSON Lines files read
and validated whole before anything is written, then loaded in ``UNWIND`` batches.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from graphmem.db.codec import coerce_record, paused_gc
from graphmem.db.ops.admission import WriteOps
from graphmem.errors import ValidationError
from graphmem.limits import DEFAULT_LIMITS, InputLimits, loads_bounded
from graphmem.models import MemoryRecord

__all__ = ["BOM", "IMPORT_BATCH", "ImportChecks", "checked_records", "import_jsonl", "iter_jsonl",
           "load_records", "read_records"]

IMPORT_BATCH = 1000
#: The UTF-8 byte order mark, which Windows tools (Notepad, PowerShell) write first: skipped at
#: the start of a file only; anywhere else it is text, and no JSON.
BOM = b"\xef\xbb\xbf"


def iter_jsonl(path: Path, limits: InputLimits = DEFAULT_LIMITS, *, start: int = 0,
               end: int | None = None, first_line: int = 1
               ) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line. A UTF-8 byte order mark at
    the start of the file (``start`` 0) is skipped; one anywhere else is not JSON.

    Args:
        path: a JSON Lines file. limits: the line length, JSON nesting depth and number
            length allowed (``line_bytes``, :func:`graphmem.limits.loads_bounded`).
        start, end: the byte offsets of a stretch of the file (a line starts at ``start``;
            the lines that start before ``end`` are read; default: all of it).
            first_line: the number of the line at ``start``.

    Raises:
        ValidationError: the file cannot be read (missing, a folder, no permission), or a
            line is over ``line_bytes``, not UTF-8, not a JSON object, nested too deep or
            holds a too long number (``file:line`` and the field in the message).
    """
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise ValidationError(f"cannot read {path}: {exc.strerror or exc}") from None
    with fh:
        number = first_line - 1
        at = start
        if start:
            fh.seek(start)
        else:  # a mark a Windows tool wrote first is no text of the file (nor of its line)
            try:
                head = fh.read(len(BOM))
            except OSError as exc:
                raise ValidationError(f"cannot read {path}: {exc.strerror or exc}") from None
            at = len(BOM) if head == BOM else 0
            fh.seek(at)
        while end is None or at < end:
            try:  # a line is read at most as far as its bound (and its line break)
                raw = fh.readline(limits.line_bytes + 2)
            except OSError as exc:
                raise ValidationError(f"cannot read {path}: {exc.strerror or exc}") from None
            if not raw:
                return
            at += len(raw)
            number += 1
            # a line cut at the bound (no line break, more follows) is longer than it, even
            # if what was cut off is carriage returns
            if len(raw.rstrip(b"\r\n")) > limits.line_bytes or (
                    not raw.endswith(b"\n") and len(raw) == limits.line_bytes + 2
                    and fh.read(1)):
                raise ValidationError(f"{path.name}:{number}: the line is over "
                                      f"{limits.line_bytes} bytes (InputLimits.line_bytes)")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ValidationError(f"{path.name}:{number}: not UTF-8 text") from None
            if not line.strip():
                continue
            try:
                obj = loads_bounded(line, limits)
            except ValidationError as exc:
                raise ValidationError(f"{path.name}:{number}: {exc}") from None
            if not isinstance(obj, dict):
                raise ValidationError(f"{path.name}:{number}: expected a JSON object")
            yield number, obj


class ImportChecks(Protocol):
    """What :func:`read_records` checks a file with: the store's write operations
    (:class:`~graphmem.db.ops.admission.WriteOps`), or an empty store's rules for an offline
    initial load (:class:`graphmem.db.bulk_load.EmptyStoreChecks`)."""

    @property
    def limits(self) -> InputLimits:
        """The bounds of user-supplied values."""

    def check_new_record(self, record: MemoryRecord) -> None:
        """Validate a record about to be created (sizes, reserved scope keys)."""

    def check_batch_lineage(self, records: Sequence[MemoryRecord]) -> None:
        """Reject duplicate ids and cycles inside the file."""

    def check_import(self, records: Sequence[MemoryRecord]) -> None:
        """Check the file's records against what is stored, writing nothing."""


def read_records(store: ImportChecks, path: Path) -> list[MemoryRecord]:
    """Every record of a JSON Lines file, validated (fields, sizes, in-file lineage) and
    checked against the store (conflicting ids, dangling references) without writing.

    Raises:
        ValidationError (with ``file:line`` in the message), RecordConflictError,
        DanglingReferenceError, LineageCycleError.
    """
    with paused_gc():  # a million records: no collection passes over those read so far
        records = list(checked_records(store, path))
        store.check_batch_lineage(records)
    store.check_import(records)
    return records


def checked_records(store: ImportChecks, path: Path, *, start: int = 0, end: int | None = None,
                    first_line: int = 1) -> Iterator[MemoryRecord]:
    """Each record of a JSON Lines file (or of a stretch of it: ``start``, ``end``,
    ``first_line`` as :func:`iter_jsonl` takes them), validated and checked on its own
    (:meth:`ImportChecks.check_new_record`), in file order; the file-wide checks are the
    caller's.

    Raises:
        ValidationError (with ``file:line`` in the message) and its subclasses.
    """
    for number, obj in iter_jsonl(path, store.limits, start=start, end=end,
                                  first_line=first_line):
        try:
            record = coerce_record(obj)
            store.check_new_record(record)
        except ValidationError as exc:
            raise type(exc)(f"{path.name}:{number}: {exc}",
                            record_ids=exc.record_ids) from None
        yield record


def load_records(store: WriteOps, records: Sequence[MemoryRecord], *,
                 batch_size: int = IMPORT_BATCH) -> Iterator[list[str]]:
    """Write records :func:`read_records` returned, in batches of ``batch_size`` (>= 1), one
    transaction each, without checking them again; yields the ids each batch created.

    Raises:
        RecordConflictError, DanglingReferenceError: a batch met a record written since the
            records were read (the batches before it stay written).
    """
    return store.put_stream((records[start:start + batch_size]
                             for start in range(0, len(records), batch_size)), checked=True)


def import_jsonl(store: WriteOps, path: str | Path, *, batch_size: int = IMPORT_BATCH
                 ) -> list[str]:
    """Import a JSON Lines file of records without policy, in ``UNWIND`` batches.

    The whole file is validated first; a bad line raises before anything is written. Each
    batch is one transaction, and references may point to earlier lines.

    Args:
        store: the store's write operations. path: the file. batch_size: records per
        transaction (>= 1).

    Returns:
        the ids created (records already stored identically are skipped).

    Raises:
        ValidationError (line numbers in the message), RecordConflictError.
    """
    if batch_size < 1:
        raise ValidationError("batch_size must be >= 1")
    records = read_records(store, Path(path))
    created: list[str] = []
    for ids in load_records(store, records, batch_size=batch_size):
        created += ids
    return created
