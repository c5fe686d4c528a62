"""Self-play training with stable-baselines3 / sb3-contrib (installed as ``trickenv.training``).

Needs the ``train`` extra (torch, sb3-contrib). See docs/training.md.
"""

from trickenv.training.league import League, Schedule
from trickenv.training.train import DEFAULTS, Run, TrainConfig, plot_curve, plot_time_to_strength, policy_weights
from trickenv.training.vec_env import SeatVecEnv

__all__ = ["DEFAULTS", "League", "Run", "Schedule", "SeatVecEnv", "TrainConfig", "plot_curve", "plot_time_to_strength",
           "policy_weights"]
