"""The test guard on real model requests: ``good_agent.models.ALLOW_MODEL_REQUESTS``.

A test suite sets ``good_agent.models.ALLOW_MODEL_REQUESTS = False`` (in a
``conftest.py``, say) so that any request a real model would send
([`ProviderModel`][good_agent.ProviderModel] and every vendor model built on it, the
agent's and the bridge's alike) raises
[`ModelRequestsDisabledError`][good_agent.models.ModelRequestsDisabledError] before
anything leaves the process. The test doubles of `good_agent.testing` never send, so
they keep working; a test that means to talk to a server (a fake one on loopback)
allows requests for its duration with
[`override_allow_model_requests`][good_agent.models.override_allow_model_requests].
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from good_agent.types.errors import GoodAgentError

__all__ = [
    "ModelRequestsDisabledError",
    "check_allow_model_requests",
    "override_allow_model_requests",
]


class ModelRequestsDisabledError(GoodAgentError, RuntimeError):
    """A real model request was about to be sent while
    ``good_agent.models.ALLOW_MODEL_REQUESTS`` is ``False``."""


def _models() -> object:
    return sys.modules["good_agent.models"]


def check_allow_model_requests(model: str = "") -> None:
    """Raise [`ModelRequestsDisabledError`][good_agent.models.ModelRequestsDisabledError]
    when ``good_agent.models.ALLOW_MODEL_REQUESTS`` is ``False`` (``model`` is named)."""
    if not getattr(_models(), "ALLOW_MODEL_REQUESTS", True):
        which = f" to {model!r}" if model else ""
        raise ModelRequestsDisabledError(
            f"a real model request{which} was about to be sent, and "
            "good_agent.models.ALLOW_MODEL_REQUESTS is False; use a test double "
            "(good_agent.testing.TestModel or ScriptedModel, agent.override(model=...)) "
            "or allow requests with good_agent.models.override_allow_model_requests(True)"
        )


@contextmanager
def override_allow_model_requests(allow: bool) -> Iterator[None]:
    """Set ``good_agent.models.ALLOW_MODEL_REQUESTS`` to ``allow`` inside the block."""
    models = _models()
    before = getattr(models, "ALLOW_MODEL_REQUESTS", True)
    setattr(models, "ALLOW_MODEL_REQUESTS", allow)  # noqa: B010 - a module attribute
    try:
        yield
    finally:
        setattr(models, "ALLOW_MODEL_REQUESTS", before)  # noqa: B010
