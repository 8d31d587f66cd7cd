"""Scenario folders (records, operations, intentions, queries), read and validated whole.

A scenario is a folder of JSON Lines files in docs/spec/records.md's field names, one object per
line: ``records.jsonl``, ``operations.jsonl`` and ``queries.jsonl`` (required) and
``intentions.jsonl`` (optional). The northwind scenario ships inside the package
(``graphmem/demo/northwind``); :func:`load_scenario` reads any folder of the same
format and checks every line before anything touches a database, so bad input fails fast.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal, TypeVar

import pydantic
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from graphmem.db.codec import coerce_record, summarize
from graphmem.errors import ValidationError
from graphmem.intentions import coerce_intention
from graphmem.models import Principal
from graphmem.write.imports import iter_jsonl

__all__ = ["Expectation", "Scenario", "ScenarioOperation", "ScenarioQuery", "iter_jsonl",
           "load_scenario", "packaged_northwind"]

REQUIRED_FILES = ("records.jsonl", "operations.jsonl", "queries.jsonl")
M = TypeVar("M", bound=BaseModel)


def packaged_northwind() -> Path:
    """The northwind scenario shipped as package data (``graphmem/demo/northwind``).

    Raises:
        ValidationError: the installation lacks it, or holds it somewhere that is not a
            folder on disk (a zip import), which :func:`load_scenario` cannot read.
    """
    folder = files("graphmem.demo").joinpath("northwind")
    if not isinstance(folder, Path) or not (folder / "records.jsonl").is_file():
        raise ValidationError(f"the packaged northwind scenario is missing ({folder}); "
                              "reinstall graphmem or pass --scenario DIR")
    return folder


class Expectation(BaseModel):
    """What must hold for one scenario query (northwind README, 'What must hold')."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    must_include: tuple[str, ...] = ()
    must_exclude: dict[str, str] = Field(default_factory=dict)
    conflicts: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    retrieved: bool | None = None
    error: str | None = None


class ScenarioQuery(BaseModel):
    """One decision state of a scenario with the caller, time and expectations.

    ``now`` stays the ISO-8601 text of the file (reports echo it); it must parse as a
    timezone-aware time.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    now: str
    principal: Principal
    state: dict[str, Any]
    expect: Expectation

    @field_validator("now")
    @classmethod
    def _aware(cls, value: str) -> str:
        parsed = datetime.fromisoformat(value)
        if parsed.tzinfo is None:
            raise ValueError("now must carry a timezone")
        return value


class ScenarioOperation(BaseModel):
    """One line of ``operations.jsonl``: a declared retraction or expiry
    (docs/spec/write-path.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    op: Literal["retract", "expire"]
    id: str = Field(min_length=1)
    at: AwareDatetime
    by: str = Field(min_length=1)
    reason: str = Field(min_length=1)


@dataclass(frozen=True)
class Scenario:
    """A scenario folder, every line validated.

    Attributes:
        folder: where it was read from. name: the folder's name (``northwind`` turns on
            the northwind README's extra checks).
        records: write proposals as given (they go through the write policy, in order).
        operations, intentions (raw objects, already validated), queries.
    """

    folder: Path
    name: str
    records: tuple[dict[str, Any], ...]
    operations: tuple[ScenarioOperation, ...]
    intentions: tuple[dict[str, Any], ...]
    queries: tuple[ScenarioQuery, ...]


def load_scenario(folder: str | Path) -> Scenario:
    """Read and validate every file of a scenario folder, touching no database.

    Raises:
        ValidationError: a required file is missing, or a line is not valid (``file:line``
            in the message).
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ValidationError(f"no scenario folder at {folder}")
    for name in REQUIRED_FILES:
        if not (folder / name).is_file():
            raise ValidationError(f"scenario folder {folder} has no {name}")
    records = _lines(folder / "records.jsonl", coerce_record)
    intentions: list[dict[str, Any]] = []
    if (folder / "intentions.jsonl").is_file():
        intentions = _lines(folder / "intentions.jsonl", coerce_intention)
    return Scenario(
        folder=folder, name=folder.name, records=tuple(records),
        operations=tuple(_models(folder / "operations.jsonl", ScenarioOperation)),
        intentions=tuple(intentions),
        queries=tuple(_models(folder / "queries.jsonl", ScenarioQuery)))


def _lines(path: Path, check: Any) -> list[dict[str, Any]]:
    """The objects of ``path``, each passed through ``check`` (a graphmem coercion)."""
    out: list[dict[str, Any]] = []
    for number, obj in iter_jsonl(path):
        try:
            check(obj)
        except ValidationError as exc:
            raise type(exc)(f"{path.name}:{number}: {exc}", record_ids=exc.record_ids) from None
        out.append(obj)
    return out


def _models(path: Path, model: type[M]) -> list[M]:
    out: list[M] = []
    for number, obj in iter_jsonl(path):
        try:
            out.append(model.model_validate(obj))
        except pydantic.ValidationError as exc:
            raise ValidationError(f"{path.name}:{number}: {summarize(exc)}") from None
    return out
