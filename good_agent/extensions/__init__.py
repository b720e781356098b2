"""Built-in extensions: citations, auth injection, caching, logging and rate limiting.

Default priorities (higher runs first on signatures, responses and ``intercept``,
last when unwrapping parameters): :class:`AuthInjector` 1000, :class:`ToolCache` 900,
:class:`RateLimiter` 500, :class:`CitationManager` 200, :class:`ToolLogger` -1000.
"""

from good_agent.extensions.auth import AuthInjector
from good_agent.extensions.cache import CacheEvent, CacheStats, ToolCache
from good_agent.extensions.cache_stores import CacheStore, MemoryStore, RedisStore, SQLiteStore
from good_agent.extensions.citation_index import Citation, CitationIndex
from good_agent.extensions.citations import CitationManager
from good_agent.extensions.credentials import (
    CredentialRule,
    UnkeyedScopeWarning,
    credential_scope,
)
from good_agent.extensions.rate_limit import (
    BucketBackend,
    MemoryBuckets,
    Rate,
    RateLimiter,
    RateLimitStats,
    RedisBuckets,
)
from good_agent.extensions.tool_logging import ToolLogger, ToolMetrics

__all__ = [
    "AuthInjector",
    "BucketBackend",
    "CacheEvent",
    "CacheStats",
    "CacheStore",
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
    "ToolCache",
    "ToolLogger",
    "ToolMetrics",
    "UnkeyedScopeWarning",
    "credential_scope",
]
