"""OpenAI's Responses API (``POST /v1/responses``, ``GET /v1/responses/{id}``): the
request and reply shapes (`wire`), the stream events (`stream`), the stored responses
(`store`) and the endpoint (`endpoint`)."""
