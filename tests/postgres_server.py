"""A private PostgreSQL server for the test run: a fresh cluster in a temporary folder,
listening on a Unix socket only, started from the machine's PostgreSQL binaries (Debian's
``postgresql`` package, which ``.ci/run`` installs) and stopped at the end of the run.

A run that is killed (SIGKILL, or a watchdog's limit) never reaches its teardown, and its
server ran on as an orphan: so a watchdog process of its own, started with the server,
stops the server and deletes its folder once the process that started it has ended."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager


def binaries() -> str | None:
    """The folder holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    return os.path.dirname(initdb) if initdb else None


@contextmanager
def server() -> Iterator[str]:
    """Start a cluster and yield its connection string; stop and delete it afterwards.
    PostgreSQL refuses to run as root, so as root the cluster belongs to the user
    ``postgres`` that Debian's package creates."""
    bindir = binaries()
    if bindir is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
    folder = tempfile.mkdtemp(prefix="sqlmetrics-pg-")
    data, socket = os.path.join(folder, "data"), folder
    run_as = []
    if os.geteuid() == 0:
        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)
        run_as = ["runuser", "-u", "postgres", "--"]
    user_name = "postgres" if run_as else pwd.getpwuid(os.geteuid()).pw_name

    def pg(*args: str) -> None:
        subprocess.run([*run_as, *args], check=True, capture_output=True)

    pg(f"{bindir}/initdb", "-D", data, "-U", user_name, "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
    options = f"-c listen_addresses='' -c unix_socket_directories={socket} -c fsync=off -c max_connections=10"
    pg(f"{bindir}/pg_ctl", "-D", data, "-o", options, "-w", "-l", os.path.join(folder, "log"), "start")
    stop = [*run_as, f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop"]
    _watch(os.getpid(), stop, folder)
    try:
        yield f"host={socket} dbname=postgres user={user_name}"
    finally:
        subprocess.run(stop, check=True, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


# Polls its parent's process id; once no such process runs, stops the server (an error:
# it was stopped already) and deletes the folder. Its own session: a Ctrl-C to the run's
# process group does not end it before the server.
_WATCHDOG = """
import os, shutil, subprocess, sys, time
parent, folder, stop = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
while True:
    try:
        os.kill(parent, 0)
    except ProcessLookupError:
        break
    time.sleep(0.5)
if os.path.isdir(folder):
    subprocess.run(stop, capture_output=True)
    shutil.rmtree(folder, ignore_errors=True)
"""


def _watch(parent: int, stop: list[str], folder: str) -> None:
    subprocess.Popen(
        [sys.executable, "-c", _WATCHDOG, str(parent), folder, *stop],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
