"""The pieces both servers share: the bridge (`good_agent.server`) and agents served to
user interfaces (`good_agent.server.ui`).

HTTP errors and their JSON shapes (`errors`), client keys and owners (`auth`), the
request body (`request_body`), request ids and their header (`ids`), the server-sent
events response (`sse`), the disconnect watch (`disconnect`), closing streams
(`closing`), redaction of secrets (`redaction`), the site guard (`site_guard`), the
application that dispatches requests (`dispatch`), where a server listens and how it
starts (`listen`), a serving process's garbage collector (`heap`) and its socket writes
batched per step of the loop (`batched_writes`). Nothing here imports the bridge's
or the agent server's own modules.
"""
