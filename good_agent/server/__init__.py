"""An OpenAI-compatible bridge that puts the provider layer behind HTTP.

Any OpenAI (Chat Completions or Responses) or Anthropic client gets real, streamed
tool calls from any configured upstream: native OpenAI, Anthropic, Gemini or Ollama
models, or a local model that only writes tool calls as text. Needs the ``server`` extra
(``pip install '.[server]'`` from a checkout). Start it with ``good-agent serve --config FILE``
or build the ASGI app with `create_app`.
"""

from good_agent._extras import require_extra

require_extra("server", "The bridge server (good-agent serve)")

from typing import TYPE_CHECKING  # noqa: E402

from good_agent._util.lazy import lazy_face  # noqa: E402
from good_agent.server.common.errors import BridgeError, HTTPError  # noqa: E402
from good_agent.server.config import (  # noqa: E402
    DEFAULT_HOST,
    DEFAULT_PORT,
    BridgeConfig,
    ConfigError,
    ModelConfig,
    ResponsesConfig,
    ServerConfig,
    load_config,
    parse_config,
)
from good_agent.server.serve import check_exposure, serve  # noqa: E402

if TYPE_CHECKING:
    from good_agent.server.app import create_app
    from good_agent.server.bridge import Bridge
    from good_agent.server.common.site_guard import SiteGuard
    from good_agent.server.request_schemas import ChatCompletionsBody, MessagesBody
    from good_agent.server.served import BridgeRequest, ServedModel

_LAZY: dict[str, str] = {
    "Bridge": "good_agent.server.bridge",
    "BridgeRequest": "good_agent.server.served",
    "ChatCompletionsBody": "good_agent.server.request_schemas",
    "MessagesBody": "good_agent.server.request_schemas",
    "ServedModel": "good_agent.server.served",
    "SiteGuard": "good_agent.server.common.site_guard",
    "create_app": "good_agent.server.app",
}
"""The names that load the bridge itself, imported on first use (so the agent server
and the CLI do not load the bridge's endpoints)."""

if not TYPE_CHECKING:  # type checkers read the imports above
    __getattr__, __dir__ = lazy_face(__name__, _LAZY)

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "Bridge",
    "BridgeConfig",
    "BridgeError",
    "BridgeRequest",
    "ChatCompletionsBody",
    "ConfigError",
    "HTTPError",
    "MessagesBody",
    "ModelConfig",
    "ResponsesConfig",
    "ServedModel",
    "ServerConfig",
    "SiteGuard",
    "check_exposure",
    "create_app",
    "load_config",
    "parse_config",
    "serve",
]
