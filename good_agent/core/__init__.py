"""The agent core: the `Agent`, its run engine, components and events.

The public names are listed once, in `good_agent`; messages, errors and usage
live in the leaf package `good_agent.types`.
"""
