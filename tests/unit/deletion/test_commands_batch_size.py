"""`graphmem delete apply` batches as the library does (docs/spec/deletion.md#apply): one default
batch size, the one the benchmark measures (docs/performance.md)."""

from __future__ import annotations

import inspect

from graphmem.deletion.apply import apply_deletion
from graphmem.deletion.commands import apply_command
from graphmem.deletion.plan import DEFAULT_BATCH_SIZE


def test_the_command_and_the_function_share_the_default_batch_size() -> None:
    command = inspect.signature(apply_command).parameters["batch_size"].default
    function = inspect.signature(apply_deletion).parameters["batch_size"].default
    assert command == function == DEFAULT_BATCH_SIZE


def test_the_default_batch_keeps_a_transaction_small() -> None:
    assert 1 <= DEFAULT_BATCH_SIZE <= 2000
