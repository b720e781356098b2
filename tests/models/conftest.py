"""Model tests share the loopback fake upstreams of the bridge tests."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_SERVER_TESTS = str(Path(__file__).resolve().parent.parent / "server")
if _SERVER_TESTS not in sys.path:
    sys.path.insert(0, _SERVER_TESTS)

from bridge_fakes import vendor_fakes  # noqa: E402
from vendor_models import Vendors  # noqa: E402


@pytest.fixture(scope="session")
def vendor_servers() -> Iterator[Vendors]:
    """One fake upstream per vendor (and a text-only OpenAI one), for the session."""
    with vendor_fakes() as served:
        yield served


@pytest.fixture
def vendors(vendor_servers: Vendors) -> Vendors:
    """The fake upstreams, reset."""
    for fake, _ in vendor_servers.values():
        fake.reset()
    return vendor_servers
