"""The Strands store's reading of a message's text: every error out of the store is a
graphmem error, so a message shaped unlike Strands' own is a ValidationError."""

from __future__ import annotations

from typing import Any, cast

import pytest

from graphmem.errors import ValidationError
from graphmem.integrations.strands.store import _message_text


def test_the_text_blocks_of_a_message_are_its_text() -> None:
    message = {"role": "user", "content": [{"text": " window seat "}, {"image": {}},
                                           {"text": "please"}]}
    assert _message_text(cast(Any, message)) == "window seat \nplease"
    assert _message_text(cast(Any, {"role": "user"})) == ""


@pytest.mark.parametrize("content", [[{"text": 5}], ["a plain string block"], "hello", [None],
                                     7])
def test_a_message_shaped_unlike_strands_is_a_validation_error(content: object) -> None:
    """``[{"text": 5}]`` and ``["a plain string block"]`` were a raw TypeError out of
    ``add_messages``; a string content was read as its characters and dropped unsaid."""
    with pytest.raises(ValidationError, match="message"):
        _message_text(cast(Any, {"role": "user", "content": content}))


def test_content_given_as_a_tuple_of_blocks_is_read_as_before() -> None:
    """A caller building messages itself may give the blocks as a tuple (or a block as a
    read-only mapping): ``add_messages`` stored their text before content was checked, and
    must not refuse it now."""
    from types import MappingProxyType

    message = {"role": "user", "content": ({"text": "window seat"},
                                           MappingProxyType({"text": "please"}))}
    assert _message_text(cast(Any, message)) == "window seat\nplease"
