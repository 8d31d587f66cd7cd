"""Scope pairs given as ``KEY=VALUE`` options: one reader for the command line and the MCP
server (graphmem.fields.parse_pairs); no database."""

from __future__ import annotations

import pytest

from graphmem import terminal
from graphmem.errors import ValidationError
from graphmem.fields import parse_pairs
from graphmem.integrations.mcp import config


def test_the_command_line_and_the_mcp_server_read_pairs_with_one_function() -> None:
    assert terminal.parse_pairs is parse_pairs
    assert config.parse_pairs is parse_pairs


def test_pairs_are_stripped_and_repeats_agree() -> None:
    assert parse_pairs([" user = u-17 ", "repo=api", "user=u-17"]) == {
        "user": "u-17", "repo": "api"}
    assert parse_pairs(None) == {} and parse_pairs([]) == {}
    assert parse_pairs(["note=a=b"]) == {"note": "a=b"}  # the first '=' splits


@pytest.mark.parametrize("pairs", [["user"], ["=u-17"], ["user="], [" = "],
                                   ["user=u-17", "user=u-99"]])
def test_bad_pairs_are_refused_naming_the_option(pairs: list[str]) -> None:
    with pytest.raises(ValidationError, match="--subject"):
        parse_pairs(pairs, "--subject")
