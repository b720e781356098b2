"""OpenAI: Chat Completions and Responses codecs, stream decoders, the strict schema
dialect, the function-tool encoding, the HTTP and SDK transports and the profile rules,
exported as one [`Vendor`][good_agent.providers.vendor.Vendor]: ``VENDOR``.

``VENDOR`` is built in `descriptor` and imported on first use: the profile rules
(`profile`) load without the codecs and transports.
"""

from typing import TYPE_CHECKING

from good_agent._util.lazy import lazy_face

if TYPE_CHECKING:
    from good_agent.providers.openai.descriptor import VENDOR

_LAZY: dict[str, str] = {"VENDOR": "good_agent.providers.openai.descriptor"}
"""Each public name and the module it is imported from on first use."""

if not TYPE_CHECKING:  # type checkers read the imports above, and flag unknown names
    __getattr__, __dir__ = lazy_face(__name__, _LAZY)

__all__ = ["VENDOR"]
