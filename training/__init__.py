"""Training players (installed as ``trickenv.training``): imitation of a teacher (a search or another agent),
expert iteration on the student's own positions, and PPO with stable-baselines3 / sb3-contrib.

``trickenv train GAME --recipe shipped --out DIR`` remakes a shipped player; one :class:`TrainConfig`
(:mod:`trickenv.training.config`) declares every setting and flag. Needs the ``train`` extra (torch,
sb3-contrib). See docs/guides/training.md.
"""

from trickenv.training.league import League, Schedule
from trickenv.training.train import Run, TrainConfig, plot_curve, plot_time_to_strength, policy_weights
from trickenv.training.vec_env import SeatVecEnv

__all__ = ["League", "Run", "Schedule", "SeatVecEnv", "TrainConfig", "plot_curve", "plot_time_to_strength",
           "policy_weights"]
