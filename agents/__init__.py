"""Agents that play trickenv games: map (observation, mask) to an action."""

from agents.random_agent import RandomAgent

__all__ = ["RandomAgent"]
