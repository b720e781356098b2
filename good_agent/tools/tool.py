"""The [`Tool`][good_agent.Tool] type and the [`tool`][good_agent.tools.tool.tool] decorator."""

from __future__ import annotations

import copy
import functools
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

from pydantic import BaseModel, SecretStr, ValidationError

from good_agent.tools.function_schema import function_schema
from good_agent.types.errors import ToolArgumentsError, ToolDefinitionError

if TYPE_CHECKING:
    from good_agent.providers.schema_validation import Validator


def _compile_schema(schema: dict[str, Any]) -> Validator:
    # JSON Schema validation loads with the first tool built from a schema.
    from good_agent.providers.schema_validation import compile_schema

    return compile_schema(schema)


def _describe(value: Any) -> str:
    from good_agent.providers.schema_words import describe

    return describe(value)


def _fields_without_secrets(model: type[BaseModel] | None) -> frozenset[str]:
    """Fields of ``model`` whose annotation never mentions ``SecretStr``."""
    if model is None:
        return frozenset()
    return frozenset(
        name
        for name, field in model.model_fields.items()
        if "SecretStr" not in repr(field.annotation)
    )


_ATOMS = frozenset({str, int, float, bool, type(None)})
"""Types that cannot hold a secret: arguments of these types are passed as they are."""


def _revealed(value: Any) -> Any:
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, dict):
        return {k: _revealed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_revealed(v) for v in value]
    return value


def _pydantic_problems(error: ValidationError) -> list[str]:
    problems = []
    for item in error.errors(include_url=False):
        loc = ".".join(str(part) for part in item["loc"]) or "arguments"
        if item["type"] == "missing":
            problems.append(f"{loc}: field required")
        elif item["type"] == "extra_forbidden":
            problems.append(f"{loc}: unexpected field")
        else:
            problems.append(f"{loc}: {item['msg']} (got {_describe(item.get('input'))})")
    return problems


class Tool:
    """A function the model can call, with its LLM-visible JSON schema.

    Build one with [`tool`][good_agent.tools.tool.tool] (from a Python function) or
    [`from_schema`][good_agent.Tool.from_schema]
    (from a JSON schema). Calling the tool object directly calls the function.
    """

    def __init__(
        self,
        name: str,
        description: str,
        parameters: dict[str, Any],
        function: Callable[..., Any] | None,
        *,
        arguments_model: type[BaseModel] | None = None,
        injected: dict[str, str] | None = None,
        takes_self: bool = False,
        retries: int | None = None,
        requires_approval: bool = False,
        timeout: float | None = None,
        sequential: bool = False,
    ) -> None:
        if not name:
            raise ToolDefinitionError("a tool needs a non-empty name")
        if timeout is not None and (isinstance(timeout, bool) or not timeout > 0):
            raise ToolDefinitionError(
                f"tool '{name}': timeout must be a positive number of seconds, not {timeout!r}"
            )
        self.name = name
        self.description = description
        self.parameters = parameters
        self.function = function
        self.arguments_model = arguments_model
        self.injected = dict(injected or {})
        self.takes_self = takes_self
        self.retries = retries
        self.requires_approval = requires_approval
        self.timeout = timeout
        """Seconds the function may run before it is cancelled (``None``: the agent's)."""
        self.sequential = sequential
        """Whether a call runs alone: no other tool runs while it does."""
        self.is_async = function is not None and inspect.iscoroutinefunction(function)
        self._schema_validator = None if arguments_model else _compile_schema(parameters)
        self._plain_text_fields = _fields_without_secrets(arguments_model)
        self._signature = {
            "type": "function",
            "function": {"name": name, "description": description, "parameters": parameters},
        }

    @property
    def signature(self) -> dict[str, Any]:
        """The LLM-visible definition in OpenAI function format (a fresh copy)."""
        return copy.deepcopy(self._signature)

    @classmethod
    def from_function(
        cls,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        retries: int | None = None,
        requires_approval: bool = False,
        timeout: float | None = None,
        sequential: bool = False,
    ) -> Tool:
        """Build a tool from a sync or async function's signature and docstring.

        ``retries`` overrides the agent's ``max_tool_retries`` for this tool;
        ``requires_approval`` makes a run stop before each call (see
        [`good_agent.RunResult.deferred`][good_agent.RunResult]); ``timeout`` (seconds)
        overrides the
        agent's ``tool_timeout``; ``sequential=True`` runs each call alone.
        """
        tool_name = name or function.__name__
        schema = function_schema(function, name=tool_name, description=description)
        return cls(
            tool_name,
            schema.description,
            schema.parameters,
            function,
            arguments_model=schema.model,
            injected=schema.injected,
            takes_self=schema.takes_self,
            retries=retries,
            requires_approval=requires_approval,
            timeout=timeout,
            sequential=sequential,
        )

    @classmethod
    def from_schema(
        cls,
        name: str,
        parameters: dict[str, Any],
        description: str = "",
        function: Callable[..., Any] | None = None,
    ) -> Tool:
        """Build a tool from a JSON schema; arguments are validated against it.

        The schema may use the common non-standard dialect at any depth, the root
        included (``"type": "dict"``, ``"float"``, ``"tuple"``, ``"any"``...): it is
        normalized to standard JSON Schema first
        (`normalize_schema`).

        ``function`` receives the arguments as keyword arguments. Without one, the
        tool can be offered to a model but running it raises an error.
        """
        if not isinstance(parameters, dict):
            raise ToolDefinitionError(f"tool '{name}': parameters must be a JSON object schema")
        from good_agent.providers.schema.normalize import normalize_schema

        normalized = normalize_schema(parameters)
        if normalized.get("type", "object") != "object":
            declared = parameters.get("type")
            raise ToolDefinitionError(
                f"tool '{name}': parameters must be a JSON object schema, got type {declared!r}"
            )
        params = {"type": "object", "properties": {}, **normalized}
        try:
            return cls(name, description, params, function)
        except ValueError as exc:
            raise ToolDefinitionError(f"tool '{name}': invalid parameters schema: {exc}") from exc

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validate ``arguments`` and return what the function will receive.

        Raises [`ToolArgumentsError`][good_agent.ToolArgumentsError] naming each field, what was
        expected and
        what was given.
        """
        if self.arguments_model is not None:
            plain = self._plain_text_fields
            for name in plain:
                if type(arguments.get(name)) not in _ATOMS:
                    # A credential injected as SecretStr into a parameter typed ``str``
                    # (not ``SecretStr``) is revealed here, at the last moment.
                    arguments = {k: _revealed(v) if k in plain else v for k, v in arguments.items()}
                    break
            try:
                model = self.arguments_model.model_validate(arguments)
            except ValidationError as exc:
                raise ToolArgumentsError(self.name, _pydantic_problems(exc)) from None
            return dict(model.__dict__)  # the fields, by name (no extras: they are forbidden)
        assert self._schema_validator is not None
        problems = self._schema_validator(arguments)
        if problems:
            raise ToolArgumentsError(self.name, problems)
        return dict(arguments)

    async def run(
        self,
        arguments: dict[str, Any],
        injections: dict[str, Any] | None = None,
        *,
        abandon_on_cancel: bool = False,
    ) -> Any:
        """Run the function with validated ``arguments`` (sync ones in a worker thread).

        ``injections`` maps injection kinds (``"agent"``, ``"call"``, ``"run"``) to
        values. A
        schema-defined tool has no Python types to ask for secrets, so injected
        ``SecretStr`` values are revealed for it here, at the last moment. With
        ``abandon_on_cancel``, cancelling a sync tool returns at once and leaves its
        thread running (a thread cannot be stopped); otherwise cancellation waits
        for the thread to finish.
        """
        if self.function is None:
            raise ToolDefinitionError(f"tool '{self.name}' has no implementation to run")
        kwargs = arguments if self.arguments_model else _revealed(arguments)
        if self.injected:
            kwargs = dict(kwargs)  # ``arguments`` stays as given
            for param, kind in self.injected.items():
                kwargs[param] = (injections or {}).get(kind)
        if self.is_async:
            return await self.function(**kwargs)
        from anyio import to_thread  # loaded by the first sync tool that runs

        return await to_thread.run_sync(
            functools.partial(self.function, **kwargs), abandon_on_cancel=abandon_on_cancel
        )

    def bind(self, instance: Any) -> Tool:
        """Return this method tool bound to ``instance`` (a component)."""
        assert self.function is not None
        bound = copy.copy(self)
        bound.function = self.function.__get__(instance, type(instance))
        bound.takes_self = False
        return bound

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None or not self.takes_self:
            return self
        key = f"__tool_{self.name}"
        cached = instance.__dict__.get(key)
        if cached is None:
            cached = self.bind(instance)
            instance.__dict__[key] = cached
        return cached

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Call the underlying function directly, bypassing validation."""
        if self.function is None:
            raise ToolDefinitionError(f"tool '{self.name}' has no implementation to run")
        return self.function(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r})"


@overload
def tool(function: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    retries: int | None = None,
    requires_approval: bool = False,
    timeout: float | None = None,
    sequential: bool = False,
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    function: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    retries: int | None = None,
    requires_approval: bool = False,
    timeout: float | None = None,
    sequential: bool = False,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a function (or a component method) into a [`Tool`][good_agent.Tool].

    Use bare (``@tool``) or with options (``@tool(name="search")``). The schema comes
    from the type hints, the descriptions from a Google-style docstring.
    ``retries`` overrides the agent's ``max_tool_retries`` for this tool;
    ``requires_approval=True`` stops a run before each call until it is approved;
    ``timeout`` (seconds) cancels a call that runs longer and tells the model (it
    counts as a failed call); ``sequential=True`` runs each call alone, never at the
    same time as another tool call of the turn.
    """

    def decorate(fn: Callable[..., Any]) -> Tool:
        return Tool.from_function(
            fn,
            name=name,
            description=description,
            retries=retries,
            requires_approval=requires_approval,
            timeout=timeout,
            sequential=sequential,
        )

    if function is not None:
        return decorate(function)
    return decorate
