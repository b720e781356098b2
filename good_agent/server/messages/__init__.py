"""Anthropic's Messages API (``POST /v1/messages``): the request and reply shapes
(`wire`) and the endpoint (`endpoint`)."""
