"""Gemini's ``generateContent`` and ``streamGenerateContent``: the request and reply
shapes (`wire`) and the endpoint (`endpoint`)."""
