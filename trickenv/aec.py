"""The PettingZoo AEC env: a thin shell over one game of the batched engine."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from gymnasium import spaces
from gymnasium.logger import warn
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from trickenv.engine.kernels import seed_states
from trickenv.engine.layout import PHASE, PH_DONE, TO_ACT
from trickenv.games.base import GameSpec, check_dealer, empty_record
from trickenv.rewards import worst_score
from trickenv.engine.entry import compiled

ILLEGAL_MODES = ("raise", "penalize")
RESET_OPTIONS = ("deal", "dealer")
OBS_DTYPES = {"int8": np.int8, "float32": np.float32}


def obs_dtype(dtype: Any) -> type:
    """``np.int8`` or ``np.float32`` from a dtype or its name; anything else raises ValueError."""
    try:
        d = np.dtype(dtype)
    except TypeError:
        d = None
    for t in OBS_DTYPES.values():
        if d == np.dtype(t):
            return t
    raise ValueError(f"dtype must be one of {list(OBS_DTYPES)}, got {dtype!r}")


class _Hot:
    """What ``TrickEnv.step`` reads and calls on every step, bound to one engine state.

    Python reads an element of a memoryview as a plain int, float or bool several times faster
    than it indexes a NumPy array (which returns a NumPy scalar).
    """

    __slots__ = ("game", "step", "step_args", "observe", "s", "before", "before_row", "mask", "rewards", "done",
                 "deal_end", "action", "obs_row", "mask_row", "copy_obs", "mask_bytes")

    def __init__(self, env: "TrickEnv") -> None:
        spec, game = env.spec, env.game
        self.game = game
        self.step_args = (*game.arrays(), spec.cfg, spec.tab, env._action, env._where, env._mask, env._obs,
                          env._rewards, env._done, env._deal_end, False)
        self.step = compiled(spec.step_kernel, self.step_args)
        self.observe = None  # compiled on first use (a seat not to act is rarely observed)
        self.s = memoryview(game.s[0])
        self.before_row = game.s[0].copy()  # the scalar row before a step (for step_events)
        self.before = memoryview(self.before_row)
        self.mask = memoryview(env._mask[0])
        self.rewards = memoryview(env._rewards[0])
        self.done = memoryview(env._done)
        self.deal_end = memoryview(env._deal_end)
        self.action = memoryview(env._action)
        self.obs_row, self.mask_row = env._obs[0], env._mask[0]
        # The int8 observation and mask as copies of int8 rows (a copy is faster than a cast).
        self.copy_obs = env.dtype is np.int8
        self.mask_bytes = env._mask[0].view(np.int8) if env.mask_dtype is np.int8 else None


class TrickEnv(AECEnv):
    """One game of a :class:`GameSpec` as a PettingZoo AEC env.

    ``illegal_action="raise"`` (the default of ``raw_env``) raises ValueError on
    an illegal action; ``"penalize"`` (the default of ``env()``, PettingZoo's
    convention for classic games) ends the episode with reward ``illegal_reward``
    for the offender and 0 for the others (terminations, not truncations) and
    logs a gymnasium warning, like PettingZoo's TerminateIllegalWrapper.
    ``illegal_reward`` defaults to the game's worst deal score
    (:func:`trickenv.rewards.worst_score`: Four Tricks -12, Farbwechsel -80 with
    3 players, King Calling -15).

    ``dtype`` (``"int8"`` or ``"float32"``) is the dtype of the observation (and of
    ``state()``), ``mask_dtype`` that of the mask (int8 by default: gymnasium's
    masked ``sample`` wants it; RLlib's action-masking example module takes the
    log of a float32 mask); ``observation_key`` and ``mask_key`` name them in the
    observation dict (RLlib's action-masking modules want ``"observations"``).

    Infos are the same for every agent and stackable: at every step every key is
    present with a fixed shape and a numeric dtype. They hold the record of the
    episode's last finished deal (all -1 before the first ends; docs/records.md),
    ``deal_end`` (this step finished a deal) and ``illegal_action``.
    """

    metadata = {"render_modes": ["human", "ansi"], "name": "trickenv", "is_parallelizable": False}

    def __init__(
        self,
        spec: GameSpec,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        illegal_reward: float | None = None,
        dtype: Any = np.int8,
        observation_key: str = "observation",
        mask_key: str = "action_mask",
        mask_dtype: Any = np.int8,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"illegal_action must be one of {list(ILLEGAL_MODES)}, got {illegal_action!r}")
        self.spec = spec
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(worst_score(spec) if illegal_reward is None else illegal_reward)
        self.dtype = obs_dtype(dtype)
        self.mask_dtype = obs_dtype(mask_dtype)
        if not (isinstance(observation_key, str) and isinstance(mask_key, str)) or observation_key == mask_key:
            raise ValueError(f"observation_key and mask_key must be two different strings, got "
                             f"{observation_key!r} and {mask_key!r}")
        self.observation_key, self.mask_key = observation_key, mask_key
        self.possible_agents = [f"player_{i}" for i in range(spec.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                observation_key: spaces.Box(0, 1, (spec.obs_size,), self.dtype),
                mask_key: spaces.Box(0, 1, (spec.num_actions,), self.mask_dtype),
            }
        )
        act_space = spaces.Discrete(spec.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self.game = spec.new_state(1)  # the engine state of this one game
        self.game.rng[:] = seed_states(None, 1)
        self._obs = np.zeros((1, spec.obs_size), np.int8)
        self._mask = np.zeros((1, spec.num_actions), np.bool_)
        self._rewards = np.zeros((1, spec.num_players), np.float32)
        self._done = np.zeros(1, np.bool_)
        self._deal_end = np.zeros(1, np.bool_)
        self._where = np.ones(1, np.bool_)
        self._action = np.zeros(1, np.int64)
        self._seat = np.zeros(1, np.int64)
        self._no_mask = np.zeros(spec.num_actions, self.mask_dtype)
        self._deal_row = np.full((1, spec.deck), -1, np.int8)
        self._use_deal = np.zeros(1, np.bool_)
        self._dealer = np.full(1, -1, np.int32)
        self._cfg_args = (spec.cfg, spec.tab)
        self._game0 = np.zeros(1, np.int64)  # the games argument of spec.records
        self._hot: _Hot | None = None  # bound on first use, and again whenever self.game is replaced
        self._rewards_set = False  # self.rewards holds a deal's scores (or a penalty)
        self._infos_deal_end = False  # the infos say deal_end
        self.events: list[dict] = []
        self.last_events: list[dict] = []
        self._no_record = self._info_dict(empty_record(self.deal_record()), False)
        # PettingZoo's optional global state: every seat's observation, seat 0 first.
        self.state_space = spaces.Box(0, 1, (spec.num_players * spec.obs_size,), self.dtype)

    def observation_space(self, agent: str) -> spaces.Space:
        """Observation space of ``agent`` (the same for all)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """Action space of ``agent`` (the same for all)."""
        return self.action_spaces[agent]

    # --------------------------------------------------------------- reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new episode; ``options={"deal": [...], "dealer": d}`` fixes the first deal.

        ``deal``: one card list (ids or text) per seat, or an int array ``[players, cards]``.
        Without ``dealer`` (or with ``None``) the dealer is drawn at random, as in the batched env.
        """
        if seed is not None:
            self.game.rng[:] = seed_states(seed, 1)
        options = options or {}
        unknown = set(options) - set(RESET_OPTIONS)
        if unknown:
            # A warning, not an error: pettingzoo.test.api_test resets with a foreign option key.
            warn(f"[trickenv] ignoring unknown reset option(s) {sorted(unknown)}; known: {list(RESET_OPTIONS)}")
        self._use_deal[0] = False
        self._dealer[0] = -1
        dealer = options.get("dealer")
        if options.get("deal") is not None:
            self._deal_row[0], self._dealer[0] = self.spec.deal_row(options["deal"], dealer)
            self._use_deal[0] = True
        elif dealer is not None:
            self._dealer[0] = check_dealer(dealer, self.spec.num_players)
        self.spec.reset_kernel(
            *self.game.arrays(), *self._cfg_args, self._deal_row, self._use_deal, self._dealer, self._mask, self._obs
        )
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: dict(self._no_record) for a in self.agents}
        self._rewards_set = self._infos_deal_end = False
        self.agent_selection = self.possible_agents[int(self.game.s[0, TO_ACT])]
        self.events: list[dict] = []  # the episode's game events so far (see GameSpec.step_events)
        self.last_events: list[dict] = []  # events of the last step

    def state(self) -> np.ndarray:
        """Global view for centralized critics: the observations of all seats, seat 0 first."""
        seats = np.arange(self.spec.num_players, dtype=np.int64)
        arrays = [np.repeat(a, self.spec.num_players, axis=0) for a in self.game.arrays()[:-1]]
        out = np.empty((self.spec.num_players, self.spec.obs_size), np.int8)
        self.spec.observe_kernel(*arrays, *self._cfg_args, seats, out)
        return out.reshape(-1).astype(self.dtype, copy=False)

    # ------------------------------------------------------------ observe
    def _bind(self) -> _Hot:
        self._hot = _Hot(self)
        return self._hot

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_hot"] = None  # memoryviews and compiled functions do not copy or pickle; bound again on use
        return state

    def last(self, observe: bool = True) -> tuple:
        """``(observation, cumulative reward, termination, truncation, info)`` of agent_selection."""
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` knows now, and its legal actions (all zero when not to act)."""
        seat = self.agent_name_mapping[agent]
        hot = self._hot
        if hot is None or hot.game is not self.game:
            hot = self._bind()
        if agent == self.agent_selection and hot.s[PHASE] != PH_DONE:
            # The last kernel call wrote this seat's observation and mask; return new arrays.
            obs = hot.obs_row.copy() if hot.copy_obs else hot.obs_row.astype(self.dtype)
            mask = hot.mask_bytes.copy() if hot.mask_bytes is not None else hot.mask_row.astype(self.mask_dtype)
            return {self.observation_key: obs, self.mask_key: mask}
        self._seat[0] = seat
        obs = np.empty((1, self.spec.obs_size), np.int8)
        args = (*self.game.arrays()[:-1], *self._cfg_args, self._seat, obs)
        if hot.observe is None:
            hot.observe = compiled(self.spec.observe_kernel, args)
        hot.observe(*args)
        return {self.observation_key: obs[0].astype(self.dtype, copy=False), self.mask_key: self._no_mask.copy()}

    # --------------------------------------------------------------- step
    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection``."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        hot = self._hot
        if hot is None or hot.game is not self.game:
            hot = self._bind()
        if type(action) is int and 0 <= action < self.spec.num_actions and hot.mask[action]:
            a = action  # the common case, checked without NumPy
        else:
            a = self._check_action(action, agent)
            if a is None:
                return
        hot.action[0] = a
        step_events, counter = self.spec.step_events, self.spec.event_counter
        if step_events is not None:
            hot.before[:] = hot.s
        hot.step(*hot.step_args)
        cumulative = self._cumulative_rewards
        if step_events is not None:
            if counter is None or hot.s[counter] != hot.before[counter]:
                self.last_events = step_events(self.spec, self.game, 0, hot.before_row.copy())
                self.events.extend(self.last_events)
            else:
                self.last_events = []
        if hot.deal_end[0]:
            cumulative[agent] = 0
            rewards = self.rewards
            for i, name in enumerate(self.agents):
                rewards[name] = hot.rewards[i]
            self._rewards_set = any(rewards.values())
            info = self._deal_info()
            self.infos = {name: dict(info) for name in self.agents}
            self._infos_deal_end = True
            self._accumulate_rewards()
        else:
            # Nothing was scored: every reward is 0.0, so accumulating them would add nothing
            # but turn this agent's cumulative reward into a float.
            cumulative[agent] = 0.0
            if self._rewards_set:
                self.rewards = {name: 0.0 for name in self.agents}
                self._rewards_set = False
            if self._infos_deal_end:
                for info in self.infos.values():
                    info["deal_end"] = np.False_
                self._infos_deal_end = False
        if hot.done[0]:
            self.terminations = {name: True for name in self.agents}
            nxt = (self.agent_name_mapping[agent] + 1) % self.spec.num_players
        else:
            nxt = hot.s[TO_ACT]
        self.agent_selection = self.possible_agents[nxt]
        if self.render_mode == "human":
            self.render()

    def deal_record(self) -> dict[str, np.ndarray]:
        """Record of the episode's last finished deal (docs/records.md; garbage before the first)."""
        rec = self.spec.records(self.spec, self.game, np.zeros(1, np.int64))
        return {k: v[0] for k, v in rec.items()}

    def _deal_info(self) -> dict[str, Any]:
        """``_info_dict(self.deal_record(), True)``, each field taken as a view of its record's row."""
        rec = self.spec.records(self.spec, self.game, self._game0)
        info: dict[str, Any] = {k: v[0, ...] for k, v in rec.items()}
        info["deal_end"] = np.True_
        info["illegal_action"] = np.False_
        return info

    def current_deal(self) -> dict[str, Any]:
        """The deal in play as ``{"deal": int8 [players, cards], "dealer": seat}``, the form
        ``reset(options=...)`` accepts. Omniscient: it shows every hand (for logging and replay)."""
        deals, dealers = self.spec.current_deals(self.game, np.zeros(1, np.int64))
        return {"deal": deals[0], "dealer": int(dealers[0])}

    @staticmethod
    def _info_dict(record: dict[str, np.ndarray], deal_end: bool) -> dict[str, Any]:
        info: dict[str, Any] = {k: np.asarray(v) for k, v in record.items()}
        info["deal_end"] = np.bool_(deal_end)
        info["illegal_action"] = np.False_
        return info

    def _check_action(self, action: Any, agent: str) -> int | None:
        n = self.spec.num_actions
        if action is None or isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                action = int(action)
            else:
                raise ValueError(f"action must be an integer action id 0..{n - 1}, got {action!r}")
        a = int(action)
        if not 0 <= a < n:
            raise ValueError(f"action {a} is out of range: {agent} has actions 0..{n - 1}")
        if self._mask[0, a]:
            return a
        if self.illegal_action == "raise":
            legal = ", ".join(f"{x} ({self.spec.action_str(x)})" for x in np.flatnonzero(self._mask[0]))
            phase = self.spec.phase_name(int(self.game.s[0, PHASE]))
            raise ValueError(
                f"illegal action {a} ({self.spec.action_str(a)}) for {agent} in phase {phase}; legal: {legal}"
            )
        self._penalize(agent)
        return None

    def _penalize(self, agent: str) -> None:
        warn(f"[trickenv] illegal action by {agent}: episode ended with reward {self.illegal_reward}")
        self.rewards = {name: 0.0 for name in self.agents}
        self.rewards[agent] = self.illegal_reward
        self._cumulative_rewards = {name: 0.0 for name in self.agents}
        self.terminations = {name: True for name in self.agents}
        self.truncations = {name: False for name in self.agents}
        for name, info in self.infos.items():
            info["deal_end"] = np.False_
            info["illegal_action"] = np.bool_(name == agent)
        self._rewards_set = any(self.rewards.values())
        self._infos_deal_end = False
        self.game.s[0, PHASE] = PH_DONE
        self._mask[0] = False
        self._accumulate_rewards()

    # ------------------------------------------------------------- render
    def render(self) -> str | None:
        """``"ansi"``: return the table as text; ``"human"``: print it."""
        if self.render_mode is None:
            warn("You are calling render method without specifying any render mode.")
            return None
        text = self.spec.text.render(self.spec, self.game, 0)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        """Nothing to release."""


class OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper with a direct path for what an AEC loop uses every step.

    The stock wrapper resolves each attribute it does not define through two ``__getattr__``
    hops (its own, then BaseWrapper's), which cost more than the engine's step: here
    ``last``, ``step``, ``agent_iter`` and the attributes read on every step
    (``agent_selection``, ``agents``, ``rewards``, ``terminations``, ``truncations``,
    ``infos``, ``_cumulative_rewards``) go to the env directly, with the same checks.

    It keeps its own flags (reset seen; stepped since the iterator last yielded) and its own
    agent iterator, and uses no private name of PettingZoo's, only the stock wrapper's public
    methods: what it does not handle itself (anything before reset, a step once every agent is
    done) goes to them, so the errors and warnings are PettingZoo's. ``reset`` goes through the
    stock one too, so the stock ``observe``, ``state`` and ``render`` see the env as reset.
    tests/test_order_enforcing.py compares the two wrappers call by call.
    """

    def __init__(self, env: AECEnv) -> None:
        self._reset_seen = False
        self._stepped = False  # step() or reset() since the agent iterator last yielded
        super().__init__(env)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new episode (see TrickEnv.reset)."""
        self._reset_seen = self._stepped = True
        super().reset(seed=seed, options=options)

    def last(self, observe: bool = True):
        """``(observation, cumulative reward, termination, truncation, info)`` of agent_selection."""
        if not self._reset_seen:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        """Play ``action`` for ``agent_selection`` (as PettingZoo's wrapper: not before reset)."""
        if self._reset_seen:
            self._stepped = True
            if self.env.agents:
                self.env.step(action)
                return
        super().step(action)  # raises before reset; warns once every agent is done

    def agent_iter(self, max_iter: int = 2**63) -> "_AgentIterable":
        """Yields agent_selection until every agent is done (each iteration must step)."""
        if not self._reset_seen:
            return super().agent_iter(max_iter)  # raises
        return _AgentIterable(self, max_iter)

    def _reset_attr(name: str) -> property:  # noqa: N805 (a helper of the class body)
        def get(self):
            if not self._reset_seen:
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self.env, name)

        def set_(self, value):
            setattr(self.env, name, value)

        return property(get, set_, doc=f"The env's ``{name}`` (after reset).")

    agent_selection = _reset_attr("agent_selection")
    agents = _reset_attr("agents")
    rewards = _reset_attr("rewards")
    terminations = _reset_attr("terminations")
    truncations = _reset_attr("truncations")
    infos = _reset_attr("infos")
    del _reset_attr

    @property
    def _cumulative_rewards(self):
        return self.env._cumulative_rewards

    @_cumulative_rewards.setter
    def _cumulative_rewards(self, value):
        self.env._cumulative_rewards = value


class _AgentIterable:
    """What ``OrderEnforcing.agent_iter`` returns: each ``iter()`` starts a new count of ``max_iter``."""

    __slots__ = ("env", "max_iter")

    def __init__(self, env: OrderEnforcing, max_iter: int) -> None:
        self.env, self.max_iter = env, max_iter

    def __iter__(self) -> "_AgentIterator":
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator:
    """PettingZoo's order-enforcing agent iterator, reading the raw env directly."""

    __slots__ = ("env", "raw", "iters_til_term")

    def __init__(self, env: OrderEnforcing, max_iter: int) -> None:
        self.env, self.raw, self.iters_til_term = env, env.env, max_iter

    def __iter__(self) -> "_AgentIterator":
        return self

    def __next__(self) -> str:
        raw = self.raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        env = self.env
        assert env._stepped, "need to call step() or reset() in a loop over `agent_iter`"
        env._stepped = False
        return raw.agent_selection


def bind_game(make_spec: Callable[..., GameSpec], name: str, module: str, title: str) -> tuple[type, Callable]:
    """PettingZoo's per-game pair for module ``module``: the ``raw_env`` class and ``env()``."""

    def __init__(self, render_mode: str | None = None, illegal_action: str = "raise",
                 illegal_reward: float | None = None, dtype: Any = np.int8, observation_key: str = "observation",
                 mask_key: str = "action_mask", mask_dtype: Any = np.int8, **options: Any) -> None:
        TrickEnv.__init__(self, make_spec(**options), render_mode, illegal_action, illegal_reward, dtype,
                          observation_key, mask_key, mask_dtype)

    raw_env = type("raw_env", (TrickEnv,), {
        "__init__": __init__,
        "__module__": module,
        "__doc__": f"{title} as a PettingZoo AEC env; game options as keyword arguments. An illegal action "
                   "raises ValueError (``illegal_action='raise'``); see TrickEnv for the env options.",
        "metadata": {"render_modes": ["human", "ansi"], "name": name, "is_parallelizable": False},
    })

    def env(render_mode: str | None = None, illegal_action: str = "penalize", **options: Any) -> OrderEnforcing:
        """The AEC env wrapped in an order-enforcing wrapper (PettingZoo's, with a direct ``last``).

        Like PettingZoo's classic envs, an illegal action ends the episode with a penalty
        for the offender (``illegal_action="penalize"``); pass ``illegal_action="raise"``
        while writing an agent, to get a ValueError that names the legal actions.
        """
        return OrderEnforcing(raw_env(render_mode=render_mode, illegal_action=illegal_action, **options))

    env.__module__ = module
    return raw_env, env
