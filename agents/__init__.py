"""Agents that play trickenv games (installed as ``trickenv.agents``): the protocol, a registry and the agents."""

from trickenv.agents.base import AGENTS, Agent, BatchAgent, make_agent, register
from trickenv.agents.pimc import PIMCAgent
from trickenv.agents.policy import PolicyAgent
from trickenv.agents.random_agent import RandomAgent
from trickenv.agents.rules import rules_agent
from trickenv.agents.search import SearchAgent

register("random", lambda spec, seed=None, **kw: RandomAgent(seed=seed, spec=spec, **kw))
register("rules", rules_agent)
register("pimc", PIMCAgent, argument=("worlds", int))
register("search", SearchAgent, argument=("worlds", int))
register("model", PolicyAgent, argument=("path", str))

__all__ = ["AGENTS", "Agent", "BatchAgent", "PIMCAgent", "PolicyAgent", "RandomAgent", "SearchAgent", "make_agent",
           "register"]
