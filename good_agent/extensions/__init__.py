"""Built-in extensions: citations, auth injection, caching, logging and rate limiting.

Default priorities (higher runs first on signatures and responses, last when
unwrapping parameters, and outermost around the call): `ToolLogger` 10000,
`AuthInjector` 1000, `ToolCache` 900, `RateLimiter` 500,
`CitationManager` 200.
"""

from typing import TYPE_CHECKING

from good_agent._util.lazy import lazy_face

if TYPE_CHECKING:
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

_LAZY: dict[str, str] = {
    "AuthInjector": "good_agent.extensions.auth",
    "BucketBackend": "good_agent.extensions._rate_limit",
    "CacheEvent": "good_agent.extensions._cache_stats",
    "CacheScopeError": "good_agent.extensions._cache",
    "CacheStats": "good_agent.extensions._cache_stats",
    "CacheStore": "good_agent.extensions._cache_stores",
    "CacheStoreUnavailable": "good_agent.extensions._cache_stores",
    "Citation": "good_agent.extensions.citation_index",
    "CitationIndex": "good_agent.extensions.citation_index",
    "CitationManager": "good_agent.extensions.citations",
    "CredentialRule": "good_agent.extensions.credentials",
    "MemoryBuckets": "good_agent.extensions._rate_limit",
    "MemoryStore": "good_agent.extensions._cache_stores",
    "Rate": "good_agent.extensions._rate_limit",
    "RateLimitStats": "good_agent.extensions._rate_limit",
    "RateLimiter": "good_agent.extensions._rate_limit",
    "RedisBuckets": "good_agent.extensions._rate_limit",
    "RedisStore": "good_agent.extensions._cache_stores",
    "SQLiteStore": "good_agent.extensions._cache_stores",
    "Telemetry": "good_agent.extensions._telemetry",
    "ToolCache": "good_agent.extensions._cache",
    "ToolLogger": "good_agent.extensions._tool_logging",
    "ToolMetrics": "good_agent.extensions._tool_metrics",
    "UnkeyedScopeWarning": "good_agent.extensions.credentials",
    "credential_scope": "good_agent.extensions.credentials",
}
"""Each public name and the module it is imported from on first use."""

if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__, __dir__ = lazy_face(__name__, _LAZY)

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
