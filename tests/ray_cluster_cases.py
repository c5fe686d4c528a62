"""trickenv's evaluation and search as Ray tasks (trickenv/cluster.py) on a real two-node Ray cluster.

The cluster is ``ray.cluster_utils.Cluster``: a head and a second node, each a raylet of its own with one
CPU, on this machine. Results must equal a local run's exactly, also when a node is lost mid-run.

These cases run in a pytest process of their own, started by tests/test_cluster.py (the default collection
skips this file: its name does not start with ``test_``), because this process is a Ray driver: if a raylet
it talks to goes down, Ray ends the driver with ``os._exit`` and no report. Run them directly with
``pytest tests/ray_cluster_cases.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="the cluster extra (pip install 'trickenv[cluster]'); CI installs it")
from ray.cluster_utils import Cluster  # noqa: E402

from trickenv.agents.progress import Progress  # noqa: E402
from trickenv.agents.evaluation import evaluate, tournament  # noqa: E402

pytestmark = pytest.mark.cluster


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    worker = c.add_node(num_cpus=1)
    c.wait_for_nodes()
    ray.init(address=c.address, log_to_driver=False)
    yield c, worker
    ray.shutdown()
    c.shutdown()


def same(a, b):
    a, b = a.to_dict(), b.to_dict()
    for key in ("pairs", "agents", "ratings", "deals", "seatings"):
        assert a[key] == b[key], key


def test_eval_on_two_nodes_equals_the_local_run(cluster):
    c, _ = cluster
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    kw = dict(deals=60, seed=61, chunk=8, progress=False)
    local = evaluate("koenigrufen", ["rules", "random", "pimc:4"], **kw)
    remote = evaluate("koenigrufen", ["rules", "random", "pimc:4"], ray=c.address, **kw)
    same(local, remote)
    assert np.array_equal(local.table_data.scores, remote.table_data.scores)
    assert np.array_equal(local.table_data.deal_ids, remote.table_data.deal_ids)
    assert sum(remote.timing["agent_decisions"].values()) == sum(local.timing["agent_decisions"].values())


def test_a_saved_model_travels_to_the_nodes(cluster, tmp_path):
    import shutil

    from trickenv.agents.policy import shipped_model_path

    path = tmp_path / "player.npz"
    shutil.copy(shipped_model_path("four_tricks"), path)
    kw = dict(deals=24, seed=5, chunk=8, progress=False, ratings=False)
    local = evaluate("four_tricks", [f"model:{path}", "random"], **kw)
    remote = evaluate("four_tricks", [f"model:{path}", "random"], ray=cluster[0].address, **kw)
    same(local, remote)


def test_tournament_on_two_nodes_equals_the_local_run(cluster):
    kw = dict(deals=6, seed=2, games=("farbwechsel", "four_tricks"), pimc_worlds=2, progress=False)
    local = tournament(["random", "rules", "pimc", "model"], **kw)
    remote = tournament(["random", "rules", "pimc", "model"], ray=cluster[0].address, **kw)
    for game in local:
        same(local[game], remote[game])


def test_a_node_lost_mid_run_costs_no_deal(cluster, monkeypatch):
    """A third node joins, and is removed when the first chunk has finished: Ray runs the tasks it held again
    elsewhere, and the result is the local one."""
    c, _ = cluster
    extra = c.add_node(num_cpus=1)
    c.wait_for_nodes()
    kw = dict(deals=48, seed=9, chunk=4, progress=False, ratings=False)
    agents = ["pimc:4", "rules", "random"]
    alive = []
    original = Progress.deals

    def deals(self, k):
        if not alive:
            alive.append(sum(1 for n in ray.nodes() if n["Alive"]))
            c.remove_node(extra)  # its running task dies with it
            alive.append(sum(1 for n in ray.nodes() if n["Alive"]))
        original(self, k)

    monkeypatch.setattr(Progress, "deals", deals)
    remote = evaluate("farbwechsel", agents, ray=c.address, **kw)
    monkeypatch.setattr(Progress, "deals", original)
    assert alive == [3, 2], alive
    local = evaluate("farbwechsel", agents, **kw)
    same(local, remote)
    assert remote.deals == 48 and not remote.interrupted


def test_the_training_searches_on_two_nodes_give_the_same_data(cluster, tmp_path):
    from trickenv.training import Run, TrainConfig
    from trickenv.training.bc import demonstrations_in_parallel

    address = cluster[0].address
    kw = dict(samples=600, workers=2, seed=4, teacher="pimc", worlds=2, batch=8)
    local = demonstrations_in_parallel("four_tricks", {}, **kw)
    remote = demonstrations_in_parallel("four_tricks", {}, ray=address, **kw)
    assert local.keys() == remote.keys()
    for key in local:
        assert np.array_equal(local[key], remote[key], equal_nan=True), key

    def run(folder, **extra):
        config = TrainConfig(game="four_tricks", steps=0, num_envs=16, n_steps=16, batch_size=256, epochs=1,
                             net=(64, 64), bc_samples=600, bc_epochs=1, eval_deals=4, seed=3, expert="search",
                             expert_iterations=1, expert_samples=600, expert_chunk=300, expert_worlds=2,
                             expert_rollout="student", bc_temperature=0.01875, **extra)
        Run(config, tmp_path / folder, progress=False).train()
        return tmp_path / folder / "expert"

    here, there = run("local"), run("ray", ray=address, bc_workers=1)

    # and once more with a node lost when the first task has finished: no label is lost or changed
    import trickenv.cluster

    c = cluster[0]
    extra = c.add_node(num_cpus=1)
    c.wait_for_nodes()
    original = trickenv.cluster.run_tasks
    lost = []

    def run_tasks(fn, jobs, on_result, **kw):
        def first(k, result):
            if not lost and fn.__name__ == "_label_job_portable":
                c.remove_node(extra)
                lost.append(k)
            on_result(k, result)
        return original(fn, jobs, first, **kw)

    trickenv.cluster.run_tasks = run_tasks
    try:
        lost_run = run("ray_lost", ray=address, bc_workers=1)
    finally:
        trickenv.cluster.run_tasks = original
    assert lost, "the node was not removed"
    for folder in (there, lost_run):
        for name in ("labels_0_0.npz", "labels_0_1.npz"):
            with np.load(here / name) as a, np.load(folder / name) as b:
                assert a.files == b.files
                for key in a.files:
                    assert np.array_equal(a[key], b[key], equal_nan=a[key].dtype.kind == "f"), (folder, name, key)
        with np.load(here.parent / "player.npz") as a, np.load(folder.parent / "player.npz") as b:
            assert all(np.array_equal(a[k], b[k]) for k in a.files if k != "meta")


def test_an_interrupted_ray_run_keeps_and_reports_the_finished_chunks(cluster, monkeypatch):
    """Ctrl-C after the first finished chunk: the tasks not finished are cancelled, the finished deals are kept
    (their scores are the local run's for the same deals) and the results say interrupted."""
    original = Progress.deals
    calls = []

    def deals(self, k):
        original(self, k)
        calls.append(k)
        raise KeyboardInterrupt

    monkeypatch.setattr(Progress, "deals", deals)
    kw = dict(deals=40, seed=3, chunk=4, progress=False, ratings=False)
    remote = evaluate("koenigrufen", ["pimc:4", "random"], ray=cluster[0].address, **kw)
    monkeypatch.setattr(Progress, "deals", original)
    assert remote.interrupted and remote.deals == 4 and remote.deals_requested == 40 and calls == [4]
    local = evaluate("koenigrufen", ["pimc:4", "random"], **kw)
    ids = remote.table_data.deal_ids
    assert np.array_equal(remote.table_data.scores, local.table_data.scores[ids])


def test_agent_objects_travel_to_the_tasks_as_copies(cluster):
    """Objects (not names) are sent to each task as they were at the start of the run; deterministic ones give the
    local result, and a search agent that has played before still plays (Ray's read-only arrays are copied)."""
    import trickenv
    from trickenv.agents import make_agent

    spec = trickenv.make_spec("four_tricks")
    model, rules = make_agent("model", spec, seed=1), make_agent("rules", spec, seed=2)
    kw = dict(deals=16, seed=4, chunk=4, progress=False, ratings=False)
    same(evaluate("four_tricks", [model, rules], **kw), evaluate("four_tricks", [model, rules], ray=cluster[0].address, **kw))
    pimc = make_agent("pimc", spec, seed=3, worlds=2)
    evaluate("four_tricks", [pimc, rules], **kw)  # its buffers are in use now
    assert evaluate("four_tricks", [pimc, rules], ray=cluster[0].address, **kw).deals == 16


def test_a_journal_continues_an_interrupted_ray_run(cluster, monkeypatch, tmp_path):
    """Ctrl-C after the first finished chunk with a journal: that chunk is on disk; the same call again plays the
    rest on the cluster and gives the local uninterrupted run's results."""
    original = Progress.deals

    def deals(self, k):
        original(self, k)
        raise KeyboardInterrupt

    kw = dict(deals=24, seed=5, chunk=4, progress=False, ratings=False)
    monkeypatch.setattr(Progress, "deals", deals)
    first = evaluate("four_tricks", ["rules", "random"], ray=cluster[0].address, journal=tmp_path / "j", **kw)
    monkeypatch.setattr(Progress, "deals", original)
    assert first.interrupted and len(list((tmp_path / "j").glob("chunk_*.npz"))) == 1
    again = evaluate("four_tricks", ["rules", "random"], ray=cluster[0].address, journal=tmp_path / "j", **kw)
    local = evaluate("four_tricks", ["rules", "random"], **kw)
    assert not again.interrupted and len(list((tmp_path / "j").glob("chunk_*.npz"))) == 6
    same(local, again)
    assert np.array_equal(local.table_data.scores, again.table_data.scores)
    assert again.timing["agent_decisions"] == local.timing["agent_decisions"] and again.timing["timed_deals"] == 24
