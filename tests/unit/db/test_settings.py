"""ConnectionSettings refuse what no driver can use with a ValidationError at construction
(graphmem.db.settings): a uri that is no Bolt or Neo4j URI, a timeout that is not a finite
number above 0, a retry time below 0 or NaN. These were raw errors at the first call: an
AttributeError for a uri of another type, a ModuleNotFoundError (aiohttp) for http://, a
ValueError from the socket for a NaN or negative timeout."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest

from graphmem.db.settings import ConnectionSettings
from graphmem.errors import ValidationError

GOOD = ConnectionSettings(uri="bolt://127.0.0.1:7687", password="x")


@pytest.mark.parametrize("change", [
    {"uri": 123}, {"uri": ""}, {"uri": "http://127.0.0.1:7474"}, {"uri": "127.0.0.1:7687"},
    {"user": None}, {"password": b"x"}, {"database": ""}, {"database": 3},
    {"connection_timeout_s": math.nan}, {"connection_timeout_s": 0},
    {"connection_timeout_s": -1.0}, {"connection_timeout_s": math.inf},
    {"acquisition_timeout_s": -1}, {"acquisition_timeout_s": "10"},
    {"acquisition_timeout_s": True}, {"retry_time_s": math.nan}, {"retry_time_s": -0.5},
    {"liveness_check_s": -5}, {"liveness_check_s": math.nan}])
def test_settings_no_driver_can_use_are_a_validation_error(change: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match=next(iter(change))):
        dataclasses.replace(GOOD, **change)


@pytest.mark.parametrize("uri", ["bolt://h", "bolt+s://h:7687", "bolt+ssc://h", "neo4j://h",
                                 "neo4j+s://h.example.com", "neo4j+ssc://h", "BOLT://h"])
def test_every_scheme_of_the_bolt_driver_is_taken(uri: str) -> None:
    assert ConnectionSettings(uri=uri).uri == uri


def test_the_edges_are_taken() -> None:
    settings = dataclasses.replace(GOOD, retry_time_s=0.0, liveness_check_s=0.0,
                                   connection_timeout_s=0.001)
    assert settings.retry_time_s == 0.0
    assert dataclasses.replace(GOOD, retry_time_s=math.inf).retry_time_s == math.inf
