"""The bridge's TOML configuration, validated by pydantic models.

A file has an optional ``[server]`` table and one ``[[models]]`` table per model
clients may ask for::

    [server]
    port = 7285
    api_keys_env = "BRIDGE_API_KEYS"

    [[models]]
    name = "local-qwen"
    provider = "ollama"
    model = "qwen2.5:7b"
    mode = "validated"

Unknown keys are refused. A bad file raises `ConfigError` whose message
names the file, the entry (``models[2]``) and the field.
"""

from __future__ import annotations

import tomllib
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_type_hints

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    IPvAnyAddress,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from good_agent.providers.profiles import IDENTITY_FIELDS, ModelProfile
from good_agent.server.common.errors import ConfigError as ConfigError

DEFAULT_HOST = "127.0.0.1"
"""The address the bridge binds to unless told otherwise (loopback)."""

DEFAULT_PORT = 7285
"""The port the bridge listens on unless told otherwise."""

Mode = Literal["auto", "native", "structured", "validated", "parsed"]
"""A tool-calling mode name (see `good_agent.providers.modes.ToolCallingMode`)."""


def check_allowed_host(host: str) -> str:
    """``host`` if it is an allowed-host entry (``name``, ``name:port``, ``*.domain``,
    ``*``), lower-cased; a ``ValueError`` saying what one looks like otherwise."""
    entry = host.strip().lower()
    if not entry or "/" in entry or " " in entry or (entry != "*" and entry.strip("*.") == ""):
        raise ValueError(
            f"{host!r} is not a host name (example.com, example.com:8443, *.example.com or *)"
        )
    return entry


def check_allowed_origin(origin: str) -> str:
    """``origin`` if it is an origin (``https://app.example.com[:port]``) or ``*``,
    lower-cased without a trailing slash; a ``ValueError`` otherwise."""
    entry = origin.strip().lower().rstrip("/")
    if entry == "*":
        return entry
    scheme, sep, rest = entry.partition("://")
    if not sep or scheme not in ("http", "https") or not rest or "/" in rest:
        raise ValueError(
            f"{origin!r} is not an origin: write the scheme and host, with the port if "
            "not the default, and no path (https://app.example.com, http://localhost:3000)"
        )
    return entry


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ServerConfig(_Strict):
    """The ``[server]`` table: where to listen, who may call, and the limits.

    ``api_keys_env`` names an environment variable holding the accepted client
    bearer keys, comma-separated. Timeouts are in seconds: ``connect_timeout`` to
    reach an upstream, ``read_timeout`` between two reads of an upstream reply
    (also the wait for a non-streaming reply), ``request_timeout`` for a whole
    non-streaming upstream call (media URLs fetched for it included),
    ``stream_timeout`` for a whole streamed reply (the client then gets an error
    event). ``max_media_part_bytes`` (5 MiB) and
    ``max_media_request_bytes`` (6 MiB) limit the decoded bytes of one image,
    document or audio part and of all the parts of one request.

    ``fetch_media_hosts`` lists the hosts (``images.example.com``, or
    ``*.example.com`` for its subdomains) whose image, document and audio URLs the
    bridge fetches itself when the upstream needs the bytes (empty: it never
    fetches); a fetch takes at most ``fetch_media_timeout`` seconds, goes to https
    URLs only and never to an address that is not public (every address the host
    name resolves to is checked, and each redirect again). ``fetch_media_resolve``
    pins host names to addresses, like ``curl --resolve``, checked the same way.
    ``allow_private_fetch`` lifts the https and public-address rules for the hosts
    of ``fetch_media_hosts``: **unsafe, for tests against a loopback server only**.

    ``allowed_hosts`` lists the ``Host`` names the bridge answers to besides the
    loopback names (``example.com``, ``example.com:8443``, ``*.example.com``, or ``*``
    for any; others get a 421), ``allowed_origins`` the browser origins
    (``https://app.example.com``, or ``*``) that may send requests and get CORS headers
    (a request from another origin is a 403), and ``body_timeout`` the seconds a
    client has to send its whole request body (408 beyond). See
    `good_agent.server.common.site_guard`.

    ``log_cost`` (off by default) writes one record per answered chat request on the
    ``good_agent.server.cost`` logger: the route, the upstream model and the price
    in US dollars from the ``genai-prices`` table (the ``cost`` extra), or
    ``unknown`` when the table has no price for the model.

    ``pass_through`` (on by default) lets a request whose API is its upstream's own
    take the pass-through path (`good_agent.server.passthrough`): the client's body
    forwarded with only the model name changed, the upstream's bytes relayed.
    ``false`` sends every request through the translating path.
    """

    host: str = DEFAULT_HOST
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535)
    api_keys_env: str | None = None
    connect_timeout: float = Field(default=10.0, gt=0)
    read_timeout: float = Field(default=300.0, gt=0)
    request_timeout: float = Field(default=600.0, gt=0)
    stream_timeout: float = Field(default=600.0, gt=0)
    max_body_bytes: int = Field(default=8 * 1024 * 1024, gt=0)
    max_media_part_bytes: int = Field(default=5 * 1024 * 1024, gt=0)
    max_media_request_bytes: int = Field(default=6 * 1024 * 1024, gt=0)
    max_upstream_connections: int = Field(default=512, gt=0)
    fetch_media_hosts: tuple[str, ...] = ()
    fetch_media_resolve: dict[str, tuple[IPvAnyAddress, ...]] = Field(default_factory=dict)
    fetch_media_timeout: float = Field(default=30.0, gt=0)
    allow_private_fetch: bool = False
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    body_timeout: float = Field(default=30.0, gt=0)
    log_cost: bool = False
    pass_through: bool = True

    @field_validator("allowed_hosts")
    @classmethod
    def _allowed_hosts(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(check_allowed_host(host) for host in value)

    @field_validator("allowed_origins")
    @classmethod
    def _allowed_origins(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(check_allowed_origin(origin) for origin in value)

    def site_options(self) -> dict[str, Any]:
        """The keyword arguments of the bridge's
        [`SiteGuard`][good_agent.server.common.site_guard.SiteGuard]."""
        return {
            "allowed_hosts": self.allowed_hosts,
            "allowed_origins": self.allowed_origins,
            "body_timeout": self.body_timeout,
        }

    @field_validator("fetch_media_hosts")
    @classmethod
    def _host_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for host in value:
            if not host or "/" in host or ":" in host or host.strip("*.") == "":
                raise ValueError(
                    f"{host!r} is not a host name (images.example.com or *.example.com)"
                )
        return tuple(host.lower() for host in value)


OVERRIDABLE_PROFILE_FIELDS: tuple[str, ...] = tuple(
    f.name for f in fields(ModelProfile) if f.name not in IDENTITY_FIELDS | {"mode"}
)
"""The `ModelProfile` fields a ``[models.profile]``
table may set: every field but the model's identity
(`IDENTITY_FIELDS`) and ``mode`` (the entry's own)."""


class _Overrides(_Strict):
    def values(self) -> dict[str, Any]:
        """The overrides that are set."""
        return {k: v for k, v in self.model_dump().items() if v is not None}


def _overrides_model() -> type[_Overrides]:
    hints = get_type_hints(ModelProfile)
    optional: dict[str, Any] = {
        name: (hints[name] | None, None) for name in OVERRIDABLE_PROFILE_FIELDS
    }
    return create_model(
        "ProfileOverrides",
        __base__=_Overrides,
        __module__=__name__,
        __doc__=(
            "Optional ``[models.profile]`` overrides of the model's capability profile: "
            "any of `OVERRIDABLE_PROFILE_FIELDS`, typed as in ``ModelProfile``."
        ),
        **optional,
    )


if TYPE_CHECKING:
    ProfileOverrides = _Overrides
else:
    ProfileOverrides = _overrides_model()
    """Optional ``[models.profile]`` overrides: the fields of ``ModelProfile`` in
    `OVERRIDABLE_PROFILE_FIELDS`, with their types; ``values()`` gives those set."""


class ModelConfig(_Strict):
    """One ``[[models]]`` entry: a name clients use and the upstream behind it.

    ``provider`` is a key of `good_agent.providers.builtin_transports.HTTP_TRANSPORTS`
    (``openai``, ``openai-responses``, ``anthropic``, ``gemini``, ``ollama``) or a provider
    registered with
    [`good_agent.models.register_provider`][good_agent.register_provider];
    ``model`` the upstream model id; ``api_key_env`` the environment variable that
    holds the upstream key (never the key itself); ``mode`` the tool-calling mode;
    ``text_format`` the text tool-call format parsed in ``validated``/``parsed``
    modes (besides the ``<tool_call>`` tags the tools prompt asks for), streamed or
    not; ``validation_retries`` how many times a ``validated`` model is asked again,
    with the errors, when a tool call it wrote is invalid (non-streamed requests);
    ``settings`` default sampling settings merged under each request's;
    ``fallback`` the names of other entries tried in order when this model fails
    with an overload, rate limit, timeout or connection error (as
    [`FallbackModel`][good_agent.FallbackModel] does for an agent; each must have
    this entry's ``kind``); ``kind`` what
    the route serves: ``chat`` (the default: the chat, messages and Gemini
    endpoints) or ``embedding`` (``POST /v1/embeddings`` only; the provider must
    be one with an embeddings API: ``openai`` (or ``openai-responses``), ``ollama`` or ``gemini``).
    ``pass_through`` (on by default) lets the route use the pass-through path when
    ``[server] pass_through`` does too and the route qualifies (see
    `good_agent.server.passthrough`).
    """

    name: str = Field(min_length=1)
    provider: str
    model: str = Field(min_length=1)
    base_url: str | None = None
    api_key_env: str | None = None
    mode: Mode = "auto"
    text_format: str = "auto"
    validation_retries: int = Field(default=1, ge=0, le=5)
    settings: dict[str, Any] = Field(default_factory=dict)
    fallback: list[str] = Field(default_factory=list)
    profile: ProfileOverrides = Field(default_factory=ProfileOverrides)
    kind: Literal["chat", "embedding"] = "chat"
    pass_through: bool = True

    @model_validator(mode="after")
    def _can_embed(self) -> ModelConfig:
        from good_agent.providers.registry import embedder_of, embedding_providers

        if self.kind == "embedding" and embedder_of(self.provider) is None:
            known = ", ".join(embedding_providers())
            raise ValueError(
                f"kind = 'embedding' needs a provider with an embeddings API ({known}); "
                f"'{self.provider}' has none"
            )
        return self

    @model_validator(mode="before")
    @classmethod
    def _no_literal_key(cls, data: Any) -> Any:
        if isinstance(data, dict) and "api_key" in data:
            raise ValueError(
                "api_key is not read from the configuration (keys do not belong in files): "
                "put the key in an environment variable and name it, "
                'e.g. api_key_env = "OPENAI_API_KEY"'
            )
        return data

    @field_validator("provider")
    @classmethod
    def _known_provider(cls, value: str) -> str:
        from good_agent.providers.registry import provider_names, vendor_of

        if vendor_of(value) is None:
            known = ", ".join(provider_names())
            raise ValueError(f"unknown provider '{value}'; known providers: {known}")
        return value

    @field_validator("text_format")
    @classmethod
    def _known_format(cls, value: str) -> str:
        from good_agent.providers.text import available_formats

        if value not in available_formats():
            known = ", ".join(available_formats())
            raise ValueError(f"unknown text format '{value}'; known formats: {known}")
        return value

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("base_url must start with http:// or https://")
        return value


class ResponsesConfig(_Strict):
    """The ``[responses]`` table: where ``/v1/responses`` keeps stored responses.

    ``store`` is ``sqlite`` (the default: the file at ``path``, created on first use;
    without a ``path``, ``responses.sqlite3`` in the user's cache directory) or
    ``redis`` (the server whose URL is in the environment variable named by
    ``redis_url_env``, so every worker and machine can continue any response).
    A stored response is kept ``ttl_seconds`` (30 days by default); one owner (client
    key) keeps at most ``max_per_owner`` responses (1,000) and the store at most
    ``max_responses`` (100,000): storing one more drops the oldest, of that owner first.
    The SQLite file is created with mode ``0600``.
    """

    store: Literal["sqlite", "redis"] = "sqlite"
    path: str | None = None
    redis_url_env: str | None = None
    ttl_seconds: int = Field(default=30 * 24 * 3600, gt=0)
    max_per_owner: int = Field(default=1000, gt=0)
    max_responses: int = Field(default=100_000, gt=0)

    @model_validator(mode="after")
    def _redis_needs_url(self) -> ResponsesConfig:
        if self.store == "redis" and not self.redis_url_env:
            raise ValueError(
                'store = "redis" needs redis_url_env, the environment variable holding '
                "the server's URL"
            )
        return self


class BridgeConfig(_Strict):
    """A whole configuration file: the server table, the models and the response store."""

    server: ServerConfig = Field(default_factory=ServerConfig)
    responses: ResponsesConfig = Field(default_factory=ResponsesConfig)
    models: list[ModelConfig] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_names(self) -> BridgeConfig:
        seen: set[str] = set()
        for entry in self.models:
            if entry.name in seen:
                raise ValueError(f"model name '{entry.name}' is configured twice")
            seen.add(entry.name)
        kinds = {entry.name: entry.kind for entry in self.models}
        for entry in self.models:
            for other in entry.fallback:
                if other == entry.name or other not in seen:
                    what = "itself" if other == entry.name else f"unknown model '{other}'"
                    raise ValueError(f"model '{entry.name}' falls back to {what}")
                if kinds[other] != entry.kind:
                    raise ValueError(
                        f"model '{entry.name}' ({entry.kind}) falls back to '{other}', a "
                        f"{kinds[other]} model; a fallback must serve the same kind of requests"
                    )
        return self

    def model_named(self, name: str) -> ModelConfig | None:
        """The entry clients reach as ``name``."""
        return next((entry for entry in self.models if entry.name == name), None)


def _location(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(top level)"


def _message(loc: tuple[int | str, ...], error_type: str, message: str) -> str:
    if error_type != "extra_forbidden" or len(loc) < 2 or loc[-2] != "profile":
        return message
    if loc[-1] == "mode":
        return "mode is set on the model entry (mode = ...), not in its profile"
    return f"unknown profile field; known: {', '.join(OVERRIDABLE_PROFILE_FIELDS)}"


def parse_config(data: dict[str, Any], source: str = "<config>") -> BridgeConfig:
    """Validate an already-parsed mapping; ``source`` names it in errors."""
    try:
        return BridgeConfig.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{_location(tuple(err['loc']))}: "
            f"{_message(tuple(err['loc']), err['type'], err['msg'])}"
            for err in exc.errors()
        )
        raise ConfigError(f"{source}: invalid configuration: {problems}") from None


def load_config(path: str | Path) -> BridgeConfig:
    """Read and validate the TOML file at ``path``."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read the configuration: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from None
    return parse_config(data, str(file))
