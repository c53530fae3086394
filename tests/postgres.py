"""A real PostgreSQL server for the test session: a throwaway cluster, started and removed here.

``postgres_server`` (session) runs Debian's ``initdb`` and ``pg_ctl`` (``/usr/lib/postgresql/*/bin``)
on a temporary folder and a free port of 127.0.0.1, with its socket in that folder too, and yields
the superuser's connection URL; at the session's end it stops the server and removes the folder.
PostgreSQL refuses to run as root, so as root the cluster belongs to Debian's ``postgres`` user and
the binaries run through ``runuser``. Durability is off (``fsync``): the data is thrown away.

``postgres_dsn`` (per test) creates an empty database on that server and drops it afterwards.

Without the server installed the fixture fails with the command that installs it (``make
test-deps``, as for chromium): a PostgreSQL test that quietly skipped would test nothing.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

SUPERUSER = "agui_test"
INSTALL = "make test-deps   (or: apt-get install -y postgresql)"


def postgres_bin() -> Path:
    """The bin folder of the newest PostgreSQL installed by Debian's package."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parent.parent.name))
    if not found:
        pytest.fail(f"PostgreSQL's initdb is not under /usr/lib/postgresql/*/bin; install it: {INSTALL}", pytrace=False)
    return Path(found[-1]).parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """One throwaway PostgreSQL cluster in ``root`` (data, socket and log)."""

    def __init__(self) -> None:
        self.bin = postgres_bin()
        # /tmp: short enough for the socket path, and open to the postgres user when run as root
        self.root = Path(tempfile.mkdtemp(prefix="agui-postgres-", dir="/tmp" if os.path.isdir("/tmp") else None))
        self.data = self.root / "data"
        self.port = free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                shutil.rmtree(self.root, ignore_errors=True)
                pytest.fail(f"running as root needs Debian's postgres user (from its package): {INSTALL}", pytrace=False)
            os.chown(self.root, owner.pw_uid, owner.pw_gid)

    def run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, cwd=self.root, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}{done.stderr}{tail}")

    def start(self) -> str:
        self.run("initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync")
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        self.run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-o", options, "-w", "-t", "60", "start")
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/postgres"

    def stop(self) -> None:
        try:
            if (self.data / "postmaster.pid").exists():
                self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a PostgreSQL server that lives as long as the test session."""
    cluster = Cluster()
    try:
        yield cluster.start()
    finally:
        cluster.stop()


@pytest.fixture
def postgres_dsn(postgres_server: str) -> Iterator[str]:
    """The URL of an empty database of its own for one test."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    yield postgres_server.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
