"""Ollama's native ``/api/chat``: codec, stream decoder and HTTP transport."""
