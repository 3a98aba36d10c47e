"""The private database's spill directory, and the removal of those a killed process left.

DuckDB's default spill directory is ``.tmp`` in the working directory, where a killed
call once left 38 GB: calls without ``con`` spill to a directory of their own in the
system's temporary directory, removed when the process exits. A process killed
mid-spill cannot remove its own, so the next process removes the abandoned ones.

Which directories are abandoned is told by a lock, not by a process id: each directory
holds a file, ``owner.lock``, that its process keeps locked (``flock``) while it runs;
the kernel releases the lock when the process ends, however it ends. A process id says
nothing across PID namespaces (containers sharing ``/tmp``: another namespace's live
process looks dead here) and can be reused; a lock is seen by every process that opens
the same file. Only a directory this library made (a real directory of this user, with
the lock file in it, a regular file) whose lock can be taken is removed, under the lock;
anything else (another user's, a name it cannot read, an older directory without a lock
file, a lock file that is a FIFO or a link) is left
alone, and nothing raised while looking is let out: cleanup never fails a call.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
from functools import cache
from pathlib import Path

SPILL_PREFIX = "sqlmetrics-spill-"
LOCK_FILE = "owner.lock"

try:
    import fcntl
except ImportError:  # Windows: no flock; nothing is removed, as before
    fcntl = None  # type: ignore[assignment]

_HELD_LOCKS: list[int] = []  # the open lock files of this process's directories: closing one releases it


@cache
def spill_directory() -> str:
    """This process's spill directory (``sqlmetrics-spill-<pid>-<random>`` in the system's
    temporary directory), locked while the process runs and removed at exit; first the
    directories abandoned by processes that no longer run are removed."""
    remove_orphaned_spill(Path(tempfile.gettempdir()))
    directory = tempfile.mkdtemp(prefix=f"{SPILL_PREFIX}{os.getpid()}-")
    _lock(Path(directory))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    return directory


def _lock(directory: Path) -> None:
    """Lock ``directory``'s lock file for the life of this process. The file is locked
    under another name and then renamed into place, so no other process can find it
    unlocked and take the directory for abandoned."""
    if fcntl is None:
        return
    pending = directory / f".{LOCK_FILE}.pending"
    descriptor = os.open(pending, os.O_CREAT | os.O_WRONLY | os.O_NOFOLLOW, 0o600)
    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.rename(pending, directory / LOCK_FILE)
    _HELD_LOCKS.append(descriptor)


def remove_orphaned_spill(parent: Path) -> None:
    """Remove the spill directories in ``parent`` that this library made and whose process
    no longer holds their lock. Never raises: an entry that cannot be read, locked or
    removed is left where it is."""
    if fcntl is None:
        return
    try:
        entries = list(parent.glob(f"{SPILL_PREFIX}*"))
    except OSError:
        return
    for directory in entries:
        try:
            _remove_if_abandoned(directory)
        except (OSError, ValueError):
            continue


def _remove_if_abandoned(directory: Path) -> None:
    """Remove ``directory`` if it is one of this user's spill directories whose lock no
    process holds; the lock is held while it is removed, so a process that starts using
    it meanwhile cannot (it made its own)."""
    status = os.lstat(directory)
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid():
        return  # a symbolic link, a file, another user's: not ours to judge
    try:  # not blocking: opening a FIFO named like the lock file waited for a writer, in every call
        descriptor = os.open(directory / LOCK_FILE, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return  # not made by this library's locking directories (or one starting): left alone
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return  # a FIFO, a device, a folder: not a lock file this library made
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # its process runs, in this PID namespace or another
        shutil.rmtree(directory, ignore_errors=True)
    finally:
        os.close(descriptor)
