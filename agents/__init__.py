"""Agents that play trickenv games (installed as ``trickenv.agents``): the protocol, a registry and the agents."""

from trickenv.agents.base import AGENTS, Agent, BatchAgent, make_agent, register
from trickenv.agents.random_agent import RandomAgent

register("random", lambda spec, seed=None, **kw: RandomAgent(seed=seed, spec=spec, **kw))

__all__ = ["AGENTS", "Agent", "BatchAgent", "RandomAgent", "make_agent", "register"]
