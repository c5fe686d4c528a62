"""Agents that play trickenv games (installed as ``trickenv.agents``): the protocol, a registry and the agents."""

from trickenv.agents.base import AGENTS, Agent, BatchAgent, make_agent, register
from trickenv.agents.pimc import PIMCAgent
from trickenv.agents.policy import PolicyAgent
from trickenv.agents.random_agent import RandomAgent
from trickenv.agents.rules import rules_agent

register("random", lambda spec, seed=None, **kw: RandomAgent(seed=seed, spec=spec, **kw))
register("rules", rules_agent)
register("pimc", PIMCAgent)
register("model", PolicyAgent)

__all__ = ["AGENTS", "Agent", "BatchAgent", "PIMCAgent", "PolicyAgent", "RandomAgent", "make_agent", "register"]
