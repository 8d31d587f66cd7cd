"""The launcher's command line without starting Java (graphmem.db.launcher): the extra JVM
options of ``GRAPHMEM_JVM_OPTIONS`` are split as a shell splits words and follow the built-in
flags, so a later flag wins; a variable that does not split is a typed error."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.db import launcher, launcher_classes
from graphmem.errors import DatabaseUnavailableError


@pytest.fixture
def java_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A JAVA_HOME whose ``java`` is never run, and no ``javac`` (source-file mode)."""
    java = tmp_path / "jdk" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text("#!/bin/sh\nexit 1\n")
    java.chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    monkeypatch.setattr(launcher_classes, "_javac", lambda java: None)
    return tmp_path


@pytest.mark.parametrize(("raw", "options"), [
    (None, []),
    ("", []),
    ("  \t", []),
    ("-XX:TieredStopAtLevel=1", ["-XX:TieredStopAtLevel=1"]),
    ("  -XX:+UseSerialGC   -Xss1m ", ["-XX:+UseSerialGC", "-Xss1m"]),
    ("'-Dgraphmem.note=two words' -Xshare:auto", ["-Dgraphmem.note=two words", "-Xshare:auto"]),
])
def test_extra_options_split_as_a_shell_does(monkeypatch: pytest.MonkeyPatch,
                                            raw: str | None, options: list[str]) -> None:
    if raw is None:
        monkeypatch.delenv(launcher.JVM_OPTIONS_ENV, raising=False)
    else:
        monkeypatch.setenv(launcher.JVM_OPTIONS_ENV, raw)
    assert launcher.extra_jvm_options() == options


def test_an_unclosed_quote_is_a_typed_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(launcher.JVM_OPTIONS_ENV, "-Dx='open")
    with pytest.raises(DatabaseUnavailableError, match=launcher.JVM_OPTIONS_ENV):
        launcher.extra_jvm_options()


def test_the_options_follow_the_built_in_flags_and_precede_the_launcher(
        java_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def command() -> list[str]:
        return launcher.launcher_command(java_home / "lib", java_home / "home", 7999,
                                         pagecache_mb=64, heap="768m", detached=False)

    monkeypatch.delenv(launcher.JVM_OPTIONS_ENV, raising=False)
    plain = command()
    monkeypatch.setenv(launcher.JVM_OPTIONS_ENV, "-XX:TieredStopAtLevel=1 -Xmx900m")
    extra = command()
    end = plain.index(launcher.JVM_FLAGS[-1]) + 1
    assert extra == [*plain[:end], "-XX:TieredStopAtLevel=1", "-Xmx900m", *plain[end:]]
    assert extra.index("-Xmx900m") > extra.index("-Xmx768m")  # the later one wins in java
    assert extra[-8:] == plain[-8:]  # the launcher's own arguments are unchanged
