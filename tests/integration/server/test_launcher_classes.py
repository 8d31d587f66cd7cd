"""The launcher compiled once (graphmem.db.launcher_classes): a start runs the compiled class,
packed in a jar, compiled again only for a changed source; without javac, or when the source
does not compile, the start runs the source as before; racing compilations leave one folder;
the command line still names Launcher.java (how a launcher process is recognised), and names
the class-data archive once there is one (graphmem.db.class_data), which a start that cannot
use it ignores.

A small stand-in source with an empty jar folder keeps these quick; every server start in
the suite runs the real launcher through the same path."""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from graphmem.db import launcher, launcher_classes
from graphmem.db.launcher_classes import MAIN_CLASS, SOURCE_PROPERTY, launcher_entry
from tests.support.database import unavailable

SOURCE = """public class Launcher {
  public static void main(String[] args) {
    System.out.println("%s " + args.length);
  }
}
"""


@pytest.fixture
def java() -> str:
    for tool in ("java", "javac"):
        if shutil.which(tool) is None:
            unavailable(f"{tool} is not on PATH (the launcher needs a Java 17+ JDK)")
    return launcher.java_executable()


def _source(folder: Path, greeting: str = "hello") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "Launcher.java"
    source.write_text(SOURCE % greeting, encoding="utf-8")
    return source


def _lib(tmp_path: Path) -> Path:
    lib = tmp_path / "neo4j" / "lib"
    lib.mkdir(parents=True)
    return lib


def _says(java: str, entry: list[str]) -> str:
    done = subprocess.run([java, *entry, "a", "b"], capture_output=True, text=True,
                          timeout=300, check=True)
    return done.stdout.strip()


def _racing(java: str, lib: Path, source: Path) -> list[Path | None]:
    """What three threads calling ``compiled_classes`` at once get."""
    found: list[Path | None] = []
    threads = [threading.Thread(
        target=lambda: found.append(launcher_classes.compiled_classes(java, lib, source)))
        for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return found


def _compilations(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The javac command lines run from now on."""
    runs: list[list[str]] = []
    real = subprocess.run

    def counted(cmd: list[str], **kwargs: Any) -> Any:
        if Path(cmd[0]).name == "javac":
            runs.append(cmd)
        return real(cmd, **kwargs)

    monkeypatch.setattr(subprocess, "run", counted)
    return runs


def test_compiled_once_and_again_when_the_source_changes(
        java: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib, source = _lib(tmp_path), _source(tmp_path / "src")
    runs = _compilations(monkeypatch)
    first = launcher_entry(java, lib, source)
    assert first[0] == f"-D{SOURCE_PROPERTY}={source}" and first[-1] == MAIN_CLASS
    assert "Launcher.java" in " ".join(first)  # launcher.pid_alive looks for it
    assert _says(java, first) == "hello 2"
    assert launcher_entry(java, lib, source) == first
    assert len(runs) == 1, "compiled again although the source did not change"
    jar = Path(first[2].split(":")[0])
    assert jar.name == launcher_classes.JAR_NAME and jar.is_file()
    assert jar.parent.parent == tmp_path / "neo4j" / "launcher-classes"

    _source(tmp_path / "src", "changed")
    second = launcher_entry(java, lib, source)
    assert len(runs) == 2 and second != first
    assert _says(java, second) == "changed 2"
    assert _says(java, first) == "hello 2"  # the first folder is left as it was


def test_classes_compiled_before_they_came_in_a_jar_get_one(
        java: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib, source = _lib(tmp_path), _source(tmp_path / "src")
    entry = launcher_entry(java, lib, source)
    jar = Path(entry[2].split(":")[0])
    jar.unlink()  # as an earlier graphmem left the folder: the class files only
    runs = _compilations(monkeypatch)
    assert _racing(java, lib, source) == [jar.parent] * 3  # several starts at once pack it
    assert launcher_entry(java, lib, source) == entry
    assert jar.is_file() and runs == []  # packed, not compiled again
    assert sorted(p.name for p in jar.parent.iterdir() if p.name.startswith(".")) == []
    assert _says(java, entry) == "hello 2"


def test_the_class_data_archive_is_named_once_there_and_a_bad_one_is_ignored(
        java: str, tmp_path: Path) -> None:
    lib, source = _lib(tmp_path), _source(tmp_path / "src")
    without = launcher_entry(java, lib, source)
    assert not any(arg.startswith("-XX:SharedArchiveFile") for arg in without)
    classes = launcher_classes.compiled_classes(java, lib, source)
    assert classes is not None
    archive = launcher_classes.class_data_file(java, classes)
    assert archive is not None and archive.parent == classes
    archive.write_bytes(b"not an archive of this JVM" * 100)
    entry = launcher_entry(java, lib, source)
    assert entry == [f"-XX:SharedArchiveFile={archive}", *without]
    assert _says(java, entry) == "hello 2"  # the JVM starts without what it cannot use


def test_without_javac_the_source_runs_as_before(
        java: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib, source = _lib(tmp_path), _source(tmp_path / "src")
    monkeypatch.setattr(launcher_classes, "_javac", lambda java: None)
    entry = launcher_entry(java, lib, source)
    assert entry == ["-cp", str(lib / "*"), str(source)]
    assert _says(java, entry) == "hello 2"


def test_a_source_that_does_not_compile_runs_as_before(java: str, tmp_path: Path) -> None:
    lib = _lib(tmp_path)
    source = tmp_path / "src" / "Launcher.java"
    source.parent.mkdir()
    source.write_text("public class Launcher { not java }\n", encoding="utf-8")
    assert launcher_entry(java, lib, source) == ["-cp", str(lib / "*"), str(source)]
    assert list((tmp_path / "neo4j" / "launcher-classes").iterdir()) == []  # nothing left


def test_a_folder_that_cannot_be_written_runs_the_source(java: str, tmp_path: Path) -> None:
    lib, source = _lib(tmp_path), _source(tmp_path / "src")
    (tmp_path / "neo4j" / "launcher-classes").write_text("a file where the folder goes")
    assert launcher_entry(java, lib, source) == ["-cp", str(lib / "*"), str(source)]


def test_racing_compilations_leave_one_folder(java: str, tmp_path: Path) -> None:
    lib, source = _lib(tmp_path), _source(tmp_path / "src")
    found = _racing(java, lib, source)
    assert len(found) == 3 and len(set(found)) == 1 and found[0] is not None
    assert list((tmp_path / "neo4j" / "launcher-classes").iterdir()) == [found[0]]
    assert _says(java, launcher_entry(java, lib, source)) == "hello 2"


def test_the_servers_command_runs_the_compiled_launcher(java: str, shared_lib_dir: Path,
                                                        tmp_path: Path) -> None:
    """The real Launcher.java compiles against the Neo4j jars (every server start of the
    suite then runs it); its command line names the source."""
    cmd = launcher.launcher_command(shared_lib_dir, tmp_path / "home", 7999, pagecache_mb=32,
                                    heap="512m", detached=False)
    assert cmd[cmd.index("--home") - 1] == MAIN_CLASS
    assert f"-D{SOURCE_PROPERTY}={launcher.launcher_dir() / 'Launcher.java'}" in cmd
