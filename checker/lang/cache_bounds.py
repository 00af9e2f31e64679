"""The on-disk caches kept to a size: the least recently used files go first.

`$RULECHECK_CACHE` (`caches.user_cache_root`) holds the Python engine's compiled successor code
(`python/`) and the interpreter's assembled programs (`vm/`), each keyed by everything it is
made from, the checker's own code included. Every upgrade of the checker and every edit of a
model makes new entries, and nothing reads the old ones again: without a bound the folders only
grow (a few weeks of development left 150 and 280 MB). So a process that writes into one of
them prunes it, once: when its files together pass `LIMIT_BYTES`, the least recently used
(oldest modification time; a hit refreshes it) are removed until a quarter of the limit is free.
One whole cold check of the bundled games writes about 1 MB of code and 11 MB of programs, so
the limit keeps several checks' worth. A file another process removes meanwhile is only a miss:
the entry is made again, as on a cold machine.
"""

from __future__ import annotations

import os

LIMIT_BYTES = 128 << 20  # per folder
_PRUNED: set[str] = set()  # folders this process has pruned


def used(path: str) -> None:
    """Mark a cache file read (its modification time, which pruning orders by)."""
    try:
        os.utime(path)
    except OSError:
        pass


def written(folder: str) -> None:
    """After a write into `folder`: prune it, once per process."""
    if folder not in _PRUNED:
        _PRUNED.add(folder)
        prune(folder, LIMIT_BYTES)


def prune(folder: str, limit: int) -> int:
    """Remove the least recently used files of `folder` until they take at most three quarters
    of `limit`, when they take more than `limit`; the number removed."""
    files: list[tuple[float, int, str]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                try:
                    if entry.is_file(follow_symlinks=False):
                        stat = entry.stat(follow_symlinks=False)
                        files.append((stat.st_mtime, stat.st_size, entry.path))
                except OSError:
                    continue  # removed by another process meanwhile
    except OSError:
        return 0
    total = sum(size for _, size, _ in files)
    if total <= limit:
        return 0
    removed = 0
    for _, size, path in sorted(files):
        if total <= limit * 3 // 4:
            break
        try:
            os.remove(path)
        except OSError:
            continue
        total -= size
        removed += 1
    return removed
