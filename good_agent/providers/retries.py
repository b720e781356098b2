"""Moved to [`good_agent.http.retries`][good_agent.http.retries]; this name is kept
for imports written against it."""

from good_agent.http.retries import *  # noqa: F403
