"""The schema is set up once while clients of the same settings that each open a driver of
their own (AsyncMemory) are open in the process, and again after the last one is released."""

from __future__ import annotations

from graphmem.db.drivers import schema_once, schema_owner
from graphmem.db.settings import ConnectionSettings

SETTINGS = ConnectionSettings(uri="bolt://127.0.0.1:1", user="neo4j", password="x",
                              database="neo4j")


def test_the_schema_is_set_up_once_while_a_client_of_the_settings_is_open() -> None:
    ran: list[str] = []
    first, release_first = schema_owner(SETTINGS)
    schema_once(first, "neo4j", lambda: ran.append("first"))
    second, release_second = schema_owner(SETTINGS)
    assert second is first
    schema_once(second, "neo4j", lambda: ran.append("second"))
    schema_once(second, "other", lambda: ran.append("other database"))
    assert ran == ["first", "other database"]
    release_first()
    release_first()  # idempotent: the second client still holds it
    third, release_third = schema_owner(SETTINGS)
    assert third is first
    release_second()
    release_third()
    # the last client was released: the next one sets the schema up again
    fourth, release_fourth = schema_owner(SETTINGS)
    assert fourth is not first
    schema_once(fourth, "neo4j", lambda: ran.append("again"))
    release_fourth()
    assert ran == ["first", "other database", "again"]


def test_other_settings_set_their_schema_up_themselves() -> None:
    ran: list[str] = []
    mine, release_mine = schema_owner(SETTINGS)
    other_settings = ConnectionSettings(uri="bolt://127.0.0.1:2", user="neo4j",
                                        password="x", database="neo4j")
    other, release_other = schema_owner(other_settings)
    assert other is not mine
    schema_once(mine, "neo4j", lambda: ran.append("mine"))
    schema_once(other, "neo4j", lambda: ran.append("other"))
    release_mine()
    release_other()
    assert ran == ["mine", "other"]
