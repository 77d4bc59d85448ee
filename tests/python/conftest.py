"""Fixtures for the Python end-to-end tests: real readers against a real deltafs mount.

Environment (set by `make test`; defaults suit a plain checkout):
  DELTAFS_BIN       the built CLI             (default: <repo>/bin/deltafs)
  DELTAFS_TESTDATA  the shared Delta tables   (default: <repo>/../shared/testdata)
  DELTAFS_STRICT=1  turn every "skip because the environment lacks X" into a failure
                    (.ci/run sets it, so CI can never pass by skipping the mounts)

Fixtures:
  deltafs_bin  Path of the binary; skips if it is missing.
  testdata     Path of the shared test tables; skips if missing.
  mount        mount(table, *extra_args) -> Path of a live mountpoint. Runs
               `deltafs mount TABLE MOUNTPOINT [extra_args]`, waits for its "ready" line,
               and on teardown stops it with SIGTERM and checks that nothing stays mounted.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest


def pytest_configure(config):
    # pyspark warns at import that it is not yet tested with pandas 3; its
    # Parquet reader, all the tests use of it, does not go through pandas.
    config.addinivalue_line("filterwarnings", "ignore:PySpark does not yet fully support pandas:FutureWarning")

REPO = Path(__file__).resolve().parents[2]
READY_TIMEOUT = 30.0  # seconds to wait for the "ready" line
STOP_TIMEOUT = 15.0   # seconds to wait for exit after SIGTERM


def _strict() -> bool:
    return os.environ.get("DELTAFS_STRICT", "") not in ("", "0", "false")


def _skip_loudly(reason: str) -> None:
    """Skip (or fail under DELTAFS_STRICT) with a message nobody can miss."""
    msg = f"!!! {reason} !!!"
    if _strict():
        pytest.fail(msg + " (DELTAFS_STRICT is set, so this is a failure)", pytrace=False)
    pytest.skip(msg)


def _binary_path() -> Path:
    return Path(os.environ.get("DELTAFS_BIN") or REPO / "bin" / "deltafs")


def _testdata_path() -> Path:
    return Path(os.environ.get("DELTAFS_TESTDATA") or REPO.parent / "shared" / "testdata")


def pytest_report_header(config):
    fuse = "present" if os.path.exists("/dev/fuse") else "MISSING (mount tests will skip)"
    return [
        f"deltafs: DELTAFS_BIN={_binary_path()} (exists: {_binary_path().exists()})",
        f"deltafs: DELTAFS_TESTDATA={_testdata_path()} (exists: {_testdata_path().is_dir()})",
        f"deltafs: /dev/fuse {fuse}; fusermount3: {shutil.which('fusermount3')}; strict: {_strict()}",
    ]


@pytest.fixture(scope="session")
def deltafs_bin() -> Path:
    path = _binary_path()
    if not (path.is_file() and os.access(path, os.X_OK)):
        _skip_loudly(f"deltafs binary not found at {path}: run `make build` or set DELTAFS_BIN")
    return path


@pytest.fixture(scope="session")
def testdata() -> Path:
    path = _testdata_path()
    if not path.is_dir():
        _skip_loudly(f"test data not found at {path}: set DELTAFS_TESTDATA to the shared testdata folder")
    return path


def _unescape_mounts_field(field: str) -> str:
    # /proc/mounts writes space, tab, newline and backslash as octal escapes (\040 ...).
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and i + 3 < len(field) and field[i + 1:i + 4].isdigit():
            out.append(chr(int(field[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def is_mounted(mountpoint: Path) -> bool:
    """True if /proc/mounts lists mountpoint as a mount target."""
    target = os.path.realpath(mountpoint)
    with open("/proc/mounts", encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and _unescape_mounts_field(parts[1]) == target:
                return True
    return False


class _Mount:
    """One `deltafs mount` subprocess and what it printed."""

    def __init__(self, argv: list[str], mountpoint: Path, log_dir: Path):
        self.argv = argv
        self.mountpoint = mountpoint
        self.stdout_lines: list[str] = []
        self.ready_line: str | None = None  # the full "ready ..." line, once seen
        self.stderr_path = log_dir / "stderr.log"
        self._stderr = open(self.stderr_path, "w+", encoding="utf-8")
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self._stderr,
            text=True, bufsize=1,
        )
        # Drain stdout for the whole life of the process, so a chatty binary never
        # blocks on a full pipe after "ready".
        self._reader = threading.Thread(target=self._read_stdout, daemon=True)
        self._reader.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.stdout_lines.append(line.rstrip("\n"))
            self._lines.put(line)
        self._lines.put(None)

    def stderr_tail(self, n: int = 40) -> str:
        if not self._stderr.closed:
            self._stderr.flush()
        try:
            lines = self.stderr_path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])

    def describe(self) -> str:
        return (f"command: {' '.join(self.argv)}\nexit code: {self.proc.poll()}\n"
                f"stdout:\n" + "\n".join(self.stdout_lines[-20:]) + f"\nstderr (tail):\n{self.stderr_tail()}")

    def wait_ready(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no 'ready' line within {timeout:.0f}s")
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self.proc.wait(timeout=5)
                raise RuntimeError("deltafs mount exited before printing 'ready'")
            if line.startswith("ready"):
                return line.rstrip("\n")

    def stop(self) -> list[str]:
        """SIGTERM, wait, then make sure nothing is left mounted. Returns problems found."""
        problems: list[str] = []
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                problems.append(f"deltafs did not exit within {STOP_TIMEOUT:.0f}s of SIGTERM; killed it")
                self.proc.kill()
                self.proc.wait(timeout=10)
        if is_mounted(self.mountpoint):
            problems.append(f"{self.mountpoint} was still mounted after deltafs exited")
            # Fallback so one bad test does not leave a dead mount behind for the rest.
            for args in (["fusermount3", "-u"], ["fusermount3", "-uz"], ["umount", "-l"]):
                if shutil.which(args[0]) is None:
                    continue
                subprocess.run(args + [str(self.mountpoint)], stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=30)
                if not is_mounted(self.mountpoint):
                    break
            if is_mounted(self.mountpoint):
                problems.append(f"{self.mountpoint} could not be unmounted")
        self._reader.join(timeout=5)
        self._stderr.close()
        return problems


@pytest.fixture
def mount(deltafs_bin: Path, tmp_path_factory: pytest.TempPathFactory):
    """Factory: mount(table, *extra_args) -> mountpoint (Path) of a running deltafs.

    `table` is anything `deltafs mount` accepts (local path, file://, mem://, s3://...).
    Each call starts its own process; all are stopped and checked at teardown.
    """
    if not os.path.exists("/dev/fuse"):
        _skip_loudly("/dev/fuse is missing: cannot run FUSE mount tests on this machine")
    if shutil.which("fusermount3") is None:
        _skip_loudly("fusermount3 is missing: install fuse3 (`make fuse`)")

    mounts: list[_Mount] = []

    def _mount(table, *extra_args: str) -> Path:
        work = tmp_path_factory.mktemp("deltafs-mount")
        mountpoint = work / "mnt"
        mountpoint.mkdir()
        argv = [str(deltafs_bin), "mount", str(table), str(mountpoint), *map(str, extra_args)]
        m = _Mount(argv, mountpoint, work)
        mounts.append(m)
        error = None
        try:
            m.ready_line = m.wait_ready(READY_TIMEOUT)
        except (TimeoutError, RuntimeError) as e:
            error = e
        if error is not None:
            problems = m.stop()
            pytest.fail(f"deltafs mount did not become ready: {error}\n{m.describe()}"
                        + ("\n" + "\n".join(problems) if problems else ""), pytrace=False)
        if not is_mounted(mountpoint):
            pytest.fail(f"deltafs printed 'ready' but {mountpoint} is not in /proc/mounts\n{m.describe()}",
                        pytrace=False)
        return mountpoint

    yield _mount

    problems: list[str] = []
    for m in reversed(mounts):
        for p in m.stop():
            problems.append(f"{p}\n{m.describe()}")
    if problems:
        pytest.fail("mount teardown:\n" + "\n\n".join(problems), pytrace=False)


@pytest.fixture(scope="session")
def spark():
    """A local Spark session (one JVM for the whole run): Spark's own Parquet reader,
    as a user points it at a mounted version (no Delta jars). Session time zone UTC,
    and partition values read as strings, as the other readers are compared."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        _skip_loudly("pyspark is not installed in the venv: run `make venv`")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        _skip_loudly("no Java for Spark: install a JDK (17 or later)")
    session = (SparkSession.builder.master("local[1]")
               .config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "1")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.sources.partitionColumnTypeInference.enabled", "false")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
