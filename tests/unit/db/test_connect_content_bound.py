"""The content bound a client is opened with (``max_content_bytes`` of ``Memory.connect``,
``AsyncMemory.connect``, a store, an offline initial load's checks) is a positive int, refused
with a ValidationError when the client is made, before any server is found, leased or started:
-1 and 0 were accepted, and every write then failed as "content too large"."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from graphmem import AsyncMemory, Memory
from graphmem.db import connect
from graphmem.db.bulk_load import EmptyStoreChecks
from graphmem.db.settings import ConnectionSettings
from graphmem.db.store import Neo4jStore
from graphmem.errors import ValidationError
from graphmem.limits import DEFAULT_LIMITS
from graphmem.write.initial import read_initial

BAD = [-1, 0, -(2**70)]
#: what the clients' argument check refuses already; a store or the checks are made without it
NO_INT = ["64", 1.5, True, None]


@pytest.fixture
def no_server(monkeypatch: pytest.MonkeyPatch) -> None:
    def reached(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a server was looked for before the bound was checked")

    monkeypatch.setattr(connect, "lease", reached)
    monkeypatch.setattr(connect, "shared_driver", reached)
    monkeypatch.setattr(ConnectionSettings, "from_env", reached)


@pytest.mark.parametrize("bound", BAD + NO_INT)
def test_memory_connect_refuses_a_bound_that_is_no_positive_int(no_server: None,
                                                                 bound: Any) -> None:
    with pytest.raises(ValidationError, match="max_content_bytes"):
        Memory.connect(max_content_bytes=bound)


@pytest.mark.parametrize("bound", BAD + NO_INT)
def test_async_memory_connect_refuses_it_too(no_server: None, bound: Any) -> None:
    async def main() -> None:
        await AsyncMemory.connect(max_content_bytes=bound)

    with pytest.raises(ValidationError, match="max_content_bytes"):
        asyncio.run(main())


@pytest.mark.parametrize("bound", BAD + NO_INT)
def test_open_store_refuses_it_before_looking_for_a_server(no_server: None,
                                                           bound: Any) -> None:
    with pytest.raises(ValidationError, match="max_content_bytes"):
        connect.open_store(None, start_if_needed=True, clock=lambda: None,  # type: ignore
                           max_content_bytes=bound, ensure_schema=False)


@pytest.mark.parametrize("bound", BAD + NO_INT)
def test_a_store_and_the_initial_checks_refuse_it(bound: Any, tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="max_content_bytes"):
        Neo4jStore(None, max_content_bytes=bound)  # type: ignore[arg-type]  # never connected
    with pytest.raises(ValidationError, match="max_content_bytes"):
        EmptyStoreChecks(DEFAULT_LIMITS, bound)
    (tmp_path / "r.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ValidationError, match="max_content_bytes"):
        read_initial(tmp_path / "r.jsonl", max_content_bytes=bound)


def test_one_byte_and_the_default_are_bounds() -> None:
    assert Neo4jStore(None, max_content_bytes=1).max_content_bytes == 1  # type: ignore[arg-type]
    assert EmptyStoreChecks(DEFAULT_LIMITS, 64 * 1024).max_content_bytes == 64 * 1024
