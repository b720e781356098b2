"""Ollama's native ``/api/chat``: codec, stream decoder, HTTP transport and profile rules."""
