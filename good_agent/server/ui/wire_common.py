"""What both UI protocols share: naming a field of the input, and telling a run's failure."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from good_agent.server.common.errors import from_model_error
from good_agent.server.common.redaction import redact
from good_agent.types.errors import GoodAgentError, ModelAuthenticationError, ModelError

logger = logging.getLogger("good_agent.server.ui")


def field_path(loc: Sequence[int | str]) -> str:
    """A pydantic error location as a dotted path (``messages.0.content``)."""
    return ".".join(str(part) for part in loc) or "body"


def run_failure(exc: Exception, request_id: str) -> tuple[str, str]:
    """The message and code a client is shown for a run that failed with ``exc``.

    A model's failure is summarized as the bridge does, and logged as a warning with
    the model's own account (the URL it could not reach, the status it got); an error of
    the framework (a usage limit, an invalid output...) keeps its message; anything
    else is logged with its traceback and told only by the request id. Secrets are
    redacted.
    """
    if isinstance(exc, ModelError):
        error = from_model_error(exc, "model")
        logger.warning(
            "request %s: the model failed (%s): %s",
            request_id,
            type(exc).__name__,
            redact(str(exc)) or error.message,
        )
        if isinstance(exc, ModelAuthenticationError):  # the bridge's wording names its config
            status = f" (HTTP {exc.status_code})" if exc.status_code else ""
            provider = exc.provider or "provider"
            return (
                f"upstream 'model' ({provider}) refused the server's credentials{status}; "
                "check the model's API key",
                error.code or "model_error",
            )
        return error.message, error.code or "model_error"
    if isinstance(exc, GoodAgentError):
        return redact(str(exc)).splitlines()[0] if str(exc) else type(exc).__name__, type(
            exc
        ).__name__
    logger.error("request %s: the run failed", request_id, exc_info=exc)
    return f"the run failed; the log has the details under {request_id}", "internal_error"
