"""benchmarks/fingerprint.py, the refactor check: same tree -> same hashes; any change in play -> a listed difference."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("fingerprint", ROOT / "benchmarks" / "fingerprint.py")
fingerprint = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fingerprint)


def test_the_same_code_gives_the_same_fingerprint_and_other_play_another(tmp_path):
    a = {"four_tricks{}": fingerprint.fingerprint("four_tricks", {}, quick=True)}
    b = {"four_tricks{}": fingerprint.fingerprint("four_tricks", {}, quick=True)}
    assert a == b and set(a["four_tricks{}"]["agents"]) == {"random", "rules", "pimc", "model"}
    other = fingerprint.batched("four_tricks", {}, 8, 30, seed=6)  # other deals: other bytes
    assert other != fingerprint.batched("four_tricks", {}, 8, 30, seed=5)
    changed = json.loads(json.dumps(b))
    changed["four_tricks{}"]["records"] = "0" * 16
    assert fingerprint.differences(a, changed) == ["four_tricks{}: records"]
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path, value in zip(paths, (a, changed), strict=True):
        path.write_text(json.dumps(value))
    assert fingerprint.main(["--compare", str(paths[0]), str(paths[0])]) == 0
    assert fingerprint.main(["--compare", str(paths[0]), str(paths[1])]) == 1
