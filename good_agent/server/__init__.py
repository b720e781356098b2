"""An OpenAI-compatible bridge that puts the provider layer behind HTTP.

Any OpenAI (Chat Completions or Responses) or Anthropic client gets real, streamed
tool calls from any configured upstream: native OpenAI, Anthropic, Gemini or Ollama
models, or a local model that only writes tool calls as text. Needs the ``server`` extra
(``pip install '.[server]'`` from a checkout). Start it with ``good-agent serve --config FILE``
or build the ASGI app with `create_app`.
"""

from good_agent._extras import require_extra

require_extra("server", "The bridge server (good-agent serve)")

from good_agent.server.app import create_app  # noqa: E402
from good_agent.server.bridge import Bridge  # noqa: E402
from good_agent.server.common.errors import BridgeError  # noqa: E402
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
from good_agent.server.request_schemas import ChatCompletionsBody, MessagesBody  # noqa: E402
from good_agent.server.serve import check_exposure, serve  # noqa: E402
from good_agent.server.served import BridgeRequest, ServedModel  # noqa: E402

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "Bridge",
    "BridgeConfig",
    "BridgeError",
    "BridgeRequest",
    "ChatCompletionsBody",
    "ConfigError",
    "MessagesBody",
    "ModelConfig",
    "ResponsesConfig",
    "ServedModel",
    "ServerConfig",
    "check_exposure",
    "create_app",
    "load_config",
    "parse_config",
    "serve",
]
