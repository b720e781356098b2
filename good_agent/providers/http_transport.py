"""Moved to [`good_agent.http.http_transport`][good_agent.http.http_transport]; this name is kept
for imports written against it."""

from good_agent.http.http_transport import *  # noqa: F403
