"""Built-in extensions: citations, auth injection, caching, logging and rate limiting.

Default priorities (higher runs first on signatures and responses, last when
unwrapping parameters, and outermost around the call): `ToolLogger` 10000,
`AuthInjector` 1000, `ToolCache` 900, `RateLimiter` 500,
`CitationManager` 200.
"""

from good_agent.core.components import AgentComponent
from good_agent.core.specs import register_spec_resolver
from good_agent.extensions._cache import CacheScopeError, ToolCache
from good_agent.extensions._cache_stats import CacheEvent, CacheStats
from good_agent.extensions._cache_stores import (
    CacheStore,
    CacheStoreUnavailable,
    MemoryStore,
    RedisStore,
    SQLiteStore,
)
from good_agent.extensions._rate_limit import (
    BucketBackend,
    MemoryBuckets,
    Rate,
    RateLimiter,
    RateLimitStats,
    RedisBuckets,
)
from good_agent.extensions._telemetry import Telemetry
from good_agent.extensions._tool_logging import ToolLogger
from good_agent.extensions._tool_metrics import ToolMetrics
from good_agent.extensions.auth import AuthInjector
from good_agent.extensions.citation_index import Citation, CitationIndex
from good_agent.extensions.citations import CitationManager
from good_agent.extensions.credentials import (
    CredentialRule,
    UnkeyedScopeWarning,
    credential_scope,
)


def _mcp_server(spec: str) -> AgentComponent:
    # The `mcp` extra stays optional: imported only when a server is asked for.
    from good_agent.extensions.mcp import MCPTools

    return MCPTools.from_spec(spec)


register_spec_resolver("mcp_servers", _mcp_server)

__all__ = [
    "AuthInjector",
    "BucketBackend",
    "CacheEvent",
    "CacheScopeError",
    "CacheStats",
    "CacheStore",
    "CacheStoreUnavailable",
    "Citation",
    "CitationIndex",
    "CitationManager",
    "CredentialRule",
    "MemoryBuckets",
    "MemoryStore",
    "Rate",
    "RateLimitStats",
    "RateLimiter",
    "RedisBuckets",
    "RedisStore",
    "SQLiteStore",
    "Telemetry",
    "ToolCache",
    "ToolLogger",
    "ToolMetrics",
    "UnkeyedScopeWarning",
    "credential_scope",
]
