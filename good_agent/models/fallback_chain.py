"""A model that falls back to the next model of a list when one fails.

(`good_agent.models.prompt_fallback` is something else: one model's fallback from
native tool calling to prompt-based calling.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import cast

from good_agent.models.base import (
    LanguageModel,
    ModelRequest,
    ModelResponse,
    ModelStreamItem,
    stream_of,
)
from good_agent.types.errors import (
    ModelConnectionError,
    ModelError,
    ModelOverloadedError,
    ModelRateLimitError,
    ModelTimeoutError,
)

DEFAULT_FALLBACK_ON: tuple[type[BaseException], ...] = (
    ModelOverloadedError,
    ModelConnectionError,
    ModelTimeoutError,
    ModelRateLimitError,
)
"""The errors that move a `FallbackModel` to its next model by default."""


class AllModelsFailedError(ModelError):
    """Every model of a [`FallbackModel`][good_agent.FallbackModel] failed; ``errors`` holds each
    one's error."""

    def __init__(self, errors: Sequence[BaseException]) -> None:
        listed = "; ".join(f"{type(e).__name__}: {e}" for e in errors)
        super().__init__(f"all {len(errors)} models failed: {listed}")
        self.errors = list(errors)


def one_attempt(model: LanguageModel) -> LanguageModel:
    """``model`` sending each request once, when it can say so (its ``one_attempt()``),
    else ``model`` itself."""
    once = getattr(model, "one_attempt", None)
    return model if once is None else cast("LanguageModel", once())


class FallbackModel:
    """Try ``primary``, then each of ``others`` in turn, when a model fails with ``on``.

    Usable wherever a model is (``Agent(model=...)``). A model given by name is
    resolved like ``Agent(model="...")``. Another error is raised at once. A streamed
    reply falls back only while nothing has been streamed yet: once deltas were
    yielded, an error is raised as is.

    Every model but the last sends each request once: its SDK client's own retries
    (with their back-off) are turned off, so a failure moves on to the next model at
    once (``models`` holds those copies, see `one_attempt`). The last model
    keeps its retries.

    Args:
        primary: The model tried first.
        *others: The models tried next, in order.
        on: The exception types that move on to the next model.
    """

    def __init__(
        self,
        primary: str | LanguageModel,
        *others: str | LanguageModel,
        on: tuple[type[BaseException], ...] = DEFAULT_FALLBACK_ON,
    ) -> None:
        from good_agent.models.resolve import resolve_model

        resolved = [resolve_model(m) for m in (primary, *others)]
        self.models: list[LanguageModel] = [*map(one_attempt, resolved[:-1]), resolved[-1]]
        self.on = on

    @property
    def model_name(self) -> str:
        """The names of the models, in the order they are tried."""
        return "fallback:" + ",".join(model.model_name for model in self.models)

    async def request(self, request: ModelRequest) -> ModelResponse:
        """The first successful reply, trying the models in order."""
        errors: list[BaseException] = []
        for model in self.models:
            try:
                return await model.request(request)
            except self.on as error:
                errors.append(error)
        raise AllModelsFailedError(errors) from errors[-1]

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelStreamItem]:
        """Stream from the first model that starts replying, trying them in order."""
        errors: list[BaseException] = []
        for model in self.models:
            stream = stream_of(model, request)
            started = False
            try:
                async for item in stream:
                    started = True
                    yield item
                return
            except self.on as error:
                if started:
                    raise
                errors.append(error)
            finally:
                aclose = getattr(stream, "aclose", None)
                if aclose is not None:
                    await aclose()
        raise AllModelsFailedError(errors) from errors[-1]
