"""OpenAI: Chat Completions and Responses codecs, stream decoders, the strict schema
dialect, the function-tool encoding and the SDK transport."""
