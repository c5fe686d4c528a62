"""Agents that play trickenv games (installed as ``trickenv.agents``): the protocol, a registry and the agents."""

from trickenv.agents.base import AGENTS, WRAPPERS, Agent, BatchAgent, make_agent, register
from trickenv.agents.decisions import with_learned_decisions
from trickenv.agents.openspiel_bots import ISMCTSAgent, MCTSAgent, OpenSpielRandomAgent
from trickenv.agents.pimc import PIMCAgent
from trickenv.agents.playbook import PlaybookAgent
from trickenv.agents.policy import PolicyAgent
from trickenv.agents.random_agent import RandomAgent
from trickenv.agents.rules import rules_agent
from trickenv.agents.sb3_agent import SB3Agent
from trickenv.agents.search import SearchAgent

register("random", lambda spec, seed=None, **kw: RandomAgent(seed=seed, spec=spec, **kw))
register("rules", rules_agent)
register("pimc", PIMCAgent, argument=("worlds", int))
register("search", SearchAgent, argument=("worlds", int))
register("model", PolicyAgent, argument=("path", str))
register("playbook", PlaybookAgent, argument=("path", str))  # the rules agent with a learned playbook
register("sb3", SB3Agent, argument=("path", str))  # a Stable-Baselines3 model (the train extra)
# OpenSpiel's bots (the openspiel extra; pyspiel is imported when one is made).
register("ismcts", ISMCTSAgent, argument=("sims", int))
register("mcts", MCTSAgent, argument=("sims", int))
register("openspiel-random", OpenSpielRandomAgent)
# Every bundled agent takes decisions=learned|PATH: its decisions before the play from learned values.
WRAPPERS["decisions"] = with_learned_decisions

__all__ = ["AGENTS", "Agent", "BatchAgent", "PIMCAgent", "PlaybookAgent", "PolicyAgent", "RandomAgent", "SearchAgent", "make_agent",
           "register"]
