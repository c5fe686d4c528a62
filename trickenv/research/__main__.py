"""``python -m trickenv.research findings``: write docs/results/findings.md from notebooks/findings/*.json."""

from __future__ import annotations

import sys

from trickenv.research.findings import findings_markdown, load_findings
from trickenv.research.repo import repo_root


def main(argv: list[str]) -> None:
    if argv != ["findings"]:
        raise SystemExit("usage: python -m trickenv.research findings   (writes docs/results/findings.md)")
    (repo_root() / "docs" / "results" / "findings.md").write_text(findings_markdown(), encoding="utf-8")
    print(f"docs/results/findings.md: {len(load_findings())} findings")


if __name__ == "__main__":
    main(sys.argv[1:])
