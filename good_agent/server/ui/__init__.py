"""An agent served to user interfaces: AG-UI, the Vercel AI UI message stream, a chat page.

``agent_app(agent)`` is the ASGI application; ``good-agent serve-agent module:agent`` runs
it. Needs the ``ui`` extra (``pip install '.[ui]'`` from a checkout). See the
"Serving an agent" page of the docs.
"""

from good_agent._extras import require_extra

require_extra("ui", "Serving an agent to user interfaces (good-agent serve-agent)")

from good_agent.server.ui.app import agent_app  # noqa: E402
from good_agent.server.ui.session import Decision, ServedAgent, ToolResult, Turn  # noqa: E402
from good_agent.server.ui.threads import (  # noqa: E402
    PostgresThreadStore,
    RedisThreadStore,
    SQLiteThreadStore,
    ThreadNotFound,
    ThreadStore,
)

__all__ = [
    "Decision",
    "PostgresThreadStore",
    "RedisThreadStore",
    "SQLiteThreadStore",
    "ServedAgent",
    "ThreadNotFound",
    "ThreadStore",
    "ToolResult",
    "Turn",
    "agent_app",
]
