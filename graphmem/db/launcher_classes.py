"""``Launcher.java`` compiled once per machine, so that a server start loads its class.

Run in source-file mode, the launcher is compiled in memory at every start: about 4 s of CPU
(javac reading the Neo4j jars), a large part of a start on a small or shared machine. Here it
is compiled once, with the JDK's ``javac``, into a folder beside the jars named by the
source's digest (a changed ``Launcher.java`` gets a folder of its own), and the start runs
the compiled class. The command line still names ``Launcher.java`` (a system property holds
its path), which is how :func:`graphmem.db.launcher.pid_alive` knows a launcher process.

Whatever stops the compilation (no ``javac`` beside ``java`` or on PATH, a folder that cannot
be written, a compiler error) leaves the start as it was: source-file mode. Several processes
may compile at once: each compiles into a temporary folder and renames it into place; one
rename wins and the others' classes, the same, are deleted (the data directory:
docs/operations.md#where-neo4j-comes-from).

The class is packed in a jar (``launcher.jar``), because HotSpot records the classes of a
class path only from jars: once :mod:`graphmem.db.class_data` has recorded the classes a
start loads into an archive beside it, every start maps that archive
(``-XX:SharedArchiveFile``) instead of loading and verifying those classes again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from graphmem.db.progress import report

#: The oldest Java the launcher supports; the classes are compiled for it (``--release``).
JAVA_RELEASE = 17
#: The launcher's class (``Launcher.java`` declares it in the unnamed package).
MAIN_CLASS = "Launcher"
#: The system property naming the source on the command line (see the module docstring).
SOURCE_PROPERTY = "graphmem.launcher.source"
#: The jar holding the compiled class, in the classes folder (see the module docstring).
JAR_NAME = "launcher.jar"
#: How long one compilation may take, in seconds (about 4 s of CPU; long on a loaded machine).
COMPILE_TIMEOUT_S = 600.0


def launcher_entry(java: str, lib_dir: Path, source: Path) -> list[str]:
    """The ``java`` arguments, after the JVM's own flags, that run the launcher with the
    jars of ``lib_dir`` on the class path.

    Args:
        java: the ``java`` executable that will run the launcher (``javac`` is looked for
            beside it first).
        lib_dir: the folder of the Neo4j jars (``graphmem.db.launcher.ensure_jars``).
        source: ``Launcher.java``.

    Returns:
        ``["-Dgraphmem.launcher.source=<source>", "-cp", "<classes>/launcher.jar:<lib_dir>/*",
        "Launcher"]`` when the compiled class is at hand (compiled now if it was not),
        preceded by ``-XX:SharedArchiveFile=<archive>`` when this ``java`` has a class-data
        archive of it (:func:`class_data_file`); else ``["-cp", "<lib_dir>/*", "<source>"]``
        (source-file mode). Never raises.
    """
    jars = str(lib_dir / "*")  # expanded by java itself
    classes = compiled_classes(java, lib_dir, source)
    if classes is None:
        return ["-cp", jars, str(source)]
    entry = [f"-D{SOURCE_PROPERTY}={source}", "-cp", f"{classes / JAR_NAME}{os.pathsep}{jars}",
             MAIN_CLASS]
    archive = class_data_file(java, classes)
    if archive is not None and archive.is_file():
        entry.insert(0, f"-XX:SharedArchiveFile={archive}")
    return entry


def class_data_file(java: str, classes: Path) -> Path | None:
    """Where the class-data archive of the launcher in ``classes`` run by ``java`` belongs
    (it may not exist): named by the real ``java`` executable's path, size and time, since
    an archive serves only the JVM build that recorded it. None when ``java`` cannot be
    read. Never raises."""
    try:
        real = Path(os.path.realpath(java))
        stat = real.stat()
    except OSError:
        return None
    key = hashlib.sha256(f"{real}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()).hexdigest()
    return classes / f"classes-{key[:16]}.jsa"


def compiled_classes(java: str, lib_dir: Path, source: Path) -> Path | None:
    """The folder holding ``source`` compiled against the jars of ``lib_dir``, compiled now
    if it is not there yet; None when it cannot be had (see the module docstring)."""
    try:
        digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
        root = lib_dir.resolve().parent / "launcher-classes"
        target = root / f"{digest}-java{JAVA_RELEASE}"
        if (target / JAR_NAME).is_file():
            return target
        if (target / f"{MAIN_CLASS}.class").is_file():  # compiled before classes came in a jar
            _pack(target)
            return target
        javac = _javac(java)
        if javac is None:
            return None
        root.mkdir(parents=True, exist_ok=True)
        report("Starting Neo4j", "compiling the launcher (once)")
        scratch = Path(tempfile.mkdtemp(prefix=".compiling-", dir=root))
    except OSError:
        return None
    try:
        done = subprocess.run(
            [javac, "--release", str(JAVA_RELEASE), "-proc:none", "-nowarn", "-encoding",
             "UTF-8", "-cp", str(lib_dir / "*"), "-d", str(scratch), str(source)],
            stdin=subprocess.DEVNULL, capture_output=True, timeout=COMPILE_TIMEOUT_S,
            check=False)
        if done.returncode != 0 or not (scratch / f"{MAIN_CLASS}.class").is_file():
            return None
        _pack(scratch)
        with contextlib.suppress(OSError):  # another process renamed its classes in first
            scratch.rename(target)
        return target if (target / JAR_NAME).is_file() else None
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _pack(folder: Path) -> None:
    """Pack the classes of ``folder`` into its :data:`JAR_NAME` (written aside, then renamed
    into place, so a start never reads half a jar). Raises OSError."""
    handle, name = tempfile.mkstemp(prefix=f".{JAR_NAME}.", dir=folder)
    part = Path(name)
    try:
        with os.fdopen(handle, "wb") as raw, zipfile.ZipFile(raw, "w") as jar:
            for compiled in sorted(folder.glob("*.class")):
                jar.write(compiled, compiled.name)
        os.replace(part, folder / JAR_NAME)
    finally:
        part.unlink(missing_ok=True)


def _javac(java: str) -> str | None:
    """The ``javac`` of the JDK that holds ``java``, else the one on PATH, else None."""
    beside = Path(os.path.realpath(java)).parent / "javac"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("javac")
