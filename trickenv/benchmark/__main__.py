"""``python -m trickenv.benchmark leaderboard [--check]``: write docs/results/leaderboard.md from the bundled cards."""

from __future__ import annotations

import sys
from pathlib import Path

from trickenv.benchmark.card import leaderboard_markdown
from trickenv.benchmark.sets import V1

PAGE = Path(__file__).resolve().parents[2] / "docs" / "results" / "leaderboard.md"


def main(argv: list[str]) -> int:
    if not argv or argv[0] != "leaderboard":
        raise SystemExit("usage: python -m trickenv.benchmark leaderboard [--check]   (docs/results/leaderboard.md)")
    text = leaderboard_markdown(V1.version)
    if "--check" in argv:
        stale = not PAGE.is_file() or PAGE.read_text(encoding="utf-8") != text
        print(f"{PAGE}: {'stale' if stale else 'up to date'}")
        return 1 if stale else 0
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
