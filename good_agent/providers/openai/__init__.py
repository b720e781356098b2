"""OpenAI: Chat Completions and Responses codecs, stream decoders, the strict schema
dialect, the function-tool encoding, the HTTP and SDK transports and the profile rules."""
