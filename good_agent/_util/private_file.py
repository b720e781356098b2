"""Files that hold secrets or conversations are created readable by their owner only."""

from __future__ import annotations

import os
from pathlib import Path

PRIVATE_MODE = 0o600
"""The mode such a file is created with: read and write for its owner, nothing else."""


def create_private(path: str | Path, *, parents: bool = False) -> None:
    """Create the file at ``path`` with mode ``0600`` unless it exists (with ``parents``,
    its missing directories too, with ``0700``). An existing file keeps its mode: the
    operator chose it. A missing directory (without ``parents``) or one that cannot be
    written raises ``OSError``.

    SQLite creates its ``-wal`` and ``-shm`` files with the database file's mode, so a
    database whose file is made here first is private with all its companions.
    ``":memory:"``, an empty path and ``file:`` URIs are left to SQLite.
    """
    text = str(path)
    if text in ("", ":memory:") or text.startswith("file:"):
        return
    file = Path(path)
    if file.exists():
        return
    if parents:
        file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        descriptor = os.open(file, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_MODE)
    except FileExistsError:  # another worker made it first
        return
    os.close(descriptor)
