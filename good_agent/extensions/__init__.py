"""Built-in extensions: citations, auth injection, caching, logging and rate limiting."""

from good_agent.extensions.auth import AuthInjector, CredentialRule, credential_scope
from good_agent.extensions.cache import CacheEvent, CacheStats, ToolCache
from good_agent.extensions.cache_stores import CacheStore, MemoryStore, RedisStore, SQLiteStore
from good_agent.extensions.citation_index import Citation, CitationIndex
from good_agent.extensions.citations import CitationManager

__all__ = [
    "AuthInjector",
    "CacheEvent",
    "CacheStats",
    "CacheStore",
    "Citation",
    "CitationIndex",
    "CitationManager",
    "CredentialRule",
    "MemoryStore",
    "RedisStore",
    "SQLiteStore",
    "ToolCache",
    "credential_scope",
]
