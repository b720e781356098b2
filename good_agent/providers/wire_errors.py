"""Moved to [`good_agent.http.wire_errors`][good_agent.http.wire_errors]; this name is kept
for imports written against it."""

from good_agent.http.wire_errors import *  # noqa: F403
