"""Model doubles for testing agents without a network.

`ScriptedModel` replays scripted replies; `TestModel` needs no
script: it calls the offered tools with arguments generated from their schemas,
then answers. Both record every request they get, including the exact tool
signatures the model would have seen.
"""

from good_agent.testing.auto import TestModel
from good_agent.testing.schema_values import SchemaValueError, value_for_schema
from good_agent.testing.scripted import RecordedRequest, Responder, ScriptedModel, StreamedReply

__all__ = [
    "RecordedRequest",
    "Responder",
    "SchemaValueError",
    "ScriptedModel",
    "StreamedReply",
    "TestModel",
    "value_for_schema",
]
