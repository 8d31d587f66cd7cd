"""The inspector's pure parts, without a database: its configuration, form readers, view
steps, element colours and marks, and SVG charts."""

from __future__ import annotations

import pytest

from graphmem.errors import (
    ValidationError,
)
from graphmem.ui.config import UiConfig


def test_config_builds_a_confined_principal_and_names_it_in_writes() -> None:
    config = UiConfig.build(tenants=[" acme "], scope={"user": "u-17"})
    assert config.principal.tenants == frozenset({"acme"})
    assert config.principal.scope == {"user": "u-17"}
    assert not config.allow_writes
    assert config.author() == "graphmem-ui[acme;user=u-17]"
    assert config.query_scope() == {"tenant": "acme", "user": "u-17"}
    assert len(config.token) > 20 and config.token != UiConfig.build(tenants=["a"]).token


@pytest.mark.parametrize("options", [
    {"tenants": []}, {"tenants": ["  "]}, {"tenants": ["a"], "clearance": "secret"},
    {"tenants": ["a"], "scope": {"tenant": "b"}}, {"tenants": ["a"], "agent": " "},
    {"tenants": ["a"], "scope": {"user": ""}},
])
def test_config_refuses_bad_options_with_a_typed_error(options: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        UiConfig.build(**options)  # type: ignore[arg-type]


def test_several_tenants_need_a_choice() -> None:
    config = UiConfig.build(tenants=["a", "b"])
    with pytest.raises(ValidationError):
        config.query_scope()
    assert config.query_scope("b") == {"tenant": "b"}
