"""Shared types, the leaf of the package: messages, errors and usage.

Every layer may import these modules; they import nothing else of ``good_agent``.
The public names are listed once, in `good_agent`.
"""
