"""The agent core: the :class:`~good_agent.Agent`, its run engine, components and events.

The public names are listed once, in :mod:`good_agent`; messages, errors and usage
live in the leaf package :mod:`good_agent.types`.
"""
