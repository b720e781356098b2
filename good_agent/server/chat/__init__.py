"""OpenAI's Chat Completions (``POST /v1/chat/completions``): the request and reply
shapes (`wire`) and the endpoint (`endpoint`)."""
