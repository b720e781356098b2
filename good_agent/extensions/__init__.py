"""Built-in extensions: citations, auth injection, caching, logging and rate limiting."""

from good_agent.extensions.citation_index import Citation, CitationIndex
from good_agent.extensions.citations import CitationManager

__all__ = ["Citation", "CitationIndex", "CitationManager"]
