"""trickenv's own work as Ray tasks: evaluation chunks, tournament games, search demonstrations, expert labels.

The ``cluster`` extra is plain ``ray`` (core only: unlike ``ray[rllib]`` it pins no gymnasium,
so it lives in the main venv). Every job handed to :func:`run_tasks` is a pure function of its
arguments (a chunk of deals with its seeds, a chunk of labels with its seed), so where it runs,
on how many nodes and in which order the jobs finish changes nothing: the caller puts the
results back in job order. A task whose worker or node is lost is run again by Ray
(``max_retries``) with the same arguments, so a lost node costs time, never a deal or a label.

``address``: ``None`` or ``"local"`` starts a Ray instance on this machine (``RAY_ADDRESS``,
if set, names a cluster instead); anything else, e.g. ``"HEAD:6379"``, joins that cluster
(docs/guides/cluster.md).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

__all__ = ["connect", "run_tasks", "file_of", "MAX_RETRIES"]

MAX_RETRIES = 5  # runs of a task whose worker or node died (Ray's system failures; not the task's own errors)


def connect(address: str | None = None) -> None:
    """Join the Ray cluster at ``address`` (or start a local instance); nothing if Ray is running already."""
    address = address or os.environ.get("RAY_ADDRESS") or "local"
    if address != "local":
        token_auth_if_available()  # before Ray is imported: it reads RAY_AUTH_MODE once, on import
    try:
        import ray
    except ImportError as e:
        raise ImportError(f"--ray needs the cluster extra (pip install 'trickenv[cluster]'): {e}") from None
    if ray.is_initialized():
        return
    if address == "local":
        # address="local" always starts a fresh instance (a plain ray.init() would join a head left
        # running on this machine).
        ray.init(address="local", include_dashboard=False, log_to_driver=False)
    else:
        try:
            ray.init(address=address, log_to_driver=False)
        except ConnectionError as e:
            raise ConnectionError(
                f"could not join the Ray cluster at {address!r} ({e}). Start one with `ray start --head "
                f"--port=PORT` and pass --ray HOST:PORT; a head with token authentication needs its token here "
                f"(~/.ray/auth_token, RAY_AUTH_TOKEN_PATH or RAY_AUTH_TOKEN; docs/guides/cluster.md)") from None


def token_auth_if_available() -> None:
    """Ask for Ray's token authentication when a token is at hand and ``RAY_AUTH_MODE`` is not set.

    ``ray start --head`` (Ray 2.60) turns token authentication on and writes the token to
    ``~/.ray/auth_token``, but a driver sends it only with ``RAY_AUTH_MODE=token``; without it
    joining fails with ``InvalidAuthToken``. A token-mode driver also joins a head that runs without
    tokens (checked), so turning it on whenever a token exists costs nothing. An explicit
    ``RAY_AUTH_MODE`` is left as the user set it.
    """
    if "RAY_AUTH_MODE" in os.environ:
        return
    path = os.environ.get("RAY_AUTH_TOKEN_PATH") or os.path.join(os.path.expanduser("~"), ".ray", "auth_token")
    if os.environ.get("RAY_AUTH_TOKEN") or os.path.isfile(path):
        os.environ["RAY_AUTH_MODE"] = "token"


def run_tasks(fn: Callable[..., Any], jobs: Sequence[tuple], on_result: Callable[[int, Any], None],
              address: str | None = None, num_cpus: float = 1, max_retries: int = MAX_RETRIES) -> None:
    """Run ``fn(*job)`` for every job as a Ray task; call ``on_result(index, result)`` as each one finishes
    (in any order). ``fn`` must be importable by the workers (a module-level function of an installed
    package). A KeyboardInterrupt cancels the tasks not yet finished and is raised again."""
    connect(address)  # first: it may have to set Ray's environment before Ray is imported
    import ray

    remote = ray.remote(num_cpus=num_cpus, max_retries=max_retries)(fn)
    index = {remote.remote(*job): k for k, job in enumerate(jobs)}
    pending = list(index)
    try:
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                on_result(index[ref], ray.get(ref))
    except BaseException:
        # Cooperative cancel (a KeyboardInterrupt in the task): force=True would kill worker processes,
        # which the cluster then has to replace; a chunk is short, so a running one ends soon either way.
        for ref in pending:
            ray.cancel(ref)
        raise


@contextmanager
def file_of(data: bytes, suffix: str = ".npz") -> Iterator[str]:
    """A temporary file holding ``data`` (a file sent along with a task), removed afterwards."""
    import tempfile

    fd, path = tempfile.mkstemp(suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        yield path
    finally:
        os.unlink(path)
