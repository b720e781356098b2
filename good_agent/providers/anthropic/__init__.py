"""Anthropic Messages: codec, schema dialect, stream decoder, HTTP and SDK transports,
profile rules."""
