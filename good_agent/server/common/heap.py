"""The garbage collector of a serving process, set for many small requests.

A server process loads its modules and builds its application once, then serves
requests that each make and drop a few hundred objects. Python's cyclic collector
knows neither fact:

- A *full* collection walks every object the process holds: the tens of thousands
  made by the imports and the application (about 27 ms each on the bridge, some
  two dozen times in eight seconds under load), though none of them will ever be
  garbage. `gc.freeze` moves them out of its way, into a generation no collection
  walks (the use the Python documentation gives it:
  https://docs.python.org/3/library/gc.html#gc.freeze).
- A *young* collection runs each time 700 more container objects have been made
  than freed. With tens of requests in flight, their live objects alone cross that
  line every few requests, so most young collections walk objects that are still in
  use. A threshold of `YOUNG_THRESHOLD` keeps the collector's check of cycles (it
  still runs, and still frees what a request leaves in cycles) while walking far
  less that is alive.

`settle_heap` does both. The serving commands (``good-agent serve`` and each of its
worker processes, ``good-agent serve-agent``, ``good-agent mcp-serve --http``) call it
once, when the application is built and before the first request; an application
built by ``create_app`` inside another program leaves that program's collector as it
is.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000
"""Container objects made and not freed between two young collections (Python's
default is 700)."""


def settle_heap() -> None:
    """Collect once, freeze what is left (the process's modules and application) out
    of every later collection, and raise the young generation's threshold to
    `YOUNG_THRESHOLD` (a higher one already set is kept; the older generations' are
    kept)."""
    gc.collect()
    gc.freeze()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, old)
