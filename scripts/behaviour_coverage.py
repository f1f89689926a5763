"""Which documented behaviour ids (BEHAVIOURS.md) the features cover.

Usage: ``python scripts/behaviour_coverage.py [BEHAVIOURS.md] [--missing]``

Every id ``B-<seed>-<section>-<item>`` listed in the checklist must be named by
at least one scenario under ``features/`` (in its name or a ``# B-…`` comment).
Prints, per seed section, covered/total, and with ``--missing`` the ids not
covered yet; exits 1 when any id is uncovered or a feature cites an id the
checklist does not have.  Items marked "(later)" or "(withdrawn)" are not
required.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ID = re.compile(r"B-\d{3}-\d{2}-\d{2}")


def checklist(path: Path) -> dict[str, bool]:
    """Every id in the checklist -> whether it is required."""
    out: dict[str, bool] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.search(r"\*\*(B-\d{3}-\d{2}-\d{2})\*\*", line)
        if m:
            out[m.group(1)] = "(later)" not in line and "(withdrawn)" not in line
    return out


def cited() -> dict[str, list[str]]:
    """Every id cited in features/, with the files citing it."""
    out: dict[str, list[str]] = defaultdict(list)
    for f in sorted((ROOT / "features").rglob("*.feature")):
        for bid in set(ID.findall(f.read_text(encoding="utf-8"))):
            out[bid].append(str(f.relative_to(ROOT)))
    return out


def main(argv: list[str]) -> int:
    args = [a for a in argv if not a.startswith("--")]
    path = Path(args[0]) if args else ROOT.parent / "shared" / "BEHAVIOURS.md"
    if not path.is_file():
        print(f"no checklist at {path}; pass its path", file=sys.stderr)
        return 2
    ids = checklist(path)
    seen = cited()
    unknown = sorted(set(seen) - set(ids))
    sections: dict[str, list[str]] = defaultdict(list)
    for bid, required in ids.items():
        if required:
            sections[bid[:8]].append(bid)
    missing = []
    for sec in sorted(sections):
        got = [b for b in sections[sec] if b in seen]
        missing += [b for b in sections[sec] if b not in seen]
        print(f"{sec}  {len(got):3d}/{len(sections[sec]):3d}")
    total = sum(len(v) for v in sections.values())
    print(f"total {total - len(missing)}/{total} covered")
    if "--missing" in argv and missing:
        print("missing: " + " ".join(missing))
    for bid in unknown:
        print(f"cited but not in the checklist: {bid} ({', '.join(seen[bid])})")
    return 1 if missing or unknown else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
