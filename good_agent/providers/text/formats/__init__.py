"""The built-in text tool-call formats, one module each."""
