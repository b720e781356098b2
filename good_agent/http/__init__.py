"""HTTP under the providers: the wires that move bytes, their retries and errors, and the
one [`Transport`][good_agent.http.transport.Transport] protocol a model sends through.

- `transport`: the `Transport` protocol (``send``, ``stream`` and the optional methods a
  caller may use, declared), and `JSONDict`;
- `http_transport`: `HttpTransport`, the pooled HTTP transport every vendor's builds on;
- `wire`, `http1_wire`: the HTTP clients under it (``httpx2``, ``aiohttp`` and the
  bridge's own HTTP/1.1 client on ``httptools``);
- `retries`: when and how often a failed attempt is sent again;
- `wire_errors`: the typed errors for status codes, connections and malformed replies;
- `endpoint`: where a model's requests go and which key may go with them.

Nothing here knows a vendor's wire format: the provider layer above builds the bodies and
reads the replies.
"""
