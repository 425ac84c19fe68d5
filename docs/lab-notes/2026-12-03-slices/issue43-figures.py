"""Run B of 2026-12-03-slices.md against issue 43's figures (added on review, 2026-12-04).

Reads the three runs' measurements.csv beside this file. A cell reached its minimum with
two valid rows; its figure is the median proxy CPU µs/req of its valid rows.

    python3 docs/lab-notes/2026-12-03-slices/issue43-figures.py
"""
import collections
import csv
import os
import statistics as st

import sys

# The folder of the three runs' measurements.csv: this one, or the one given (a later run of the bench).
HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
KEY = ("series", "proxy", "version", "variant", "key_type", "model", "connections", "path", "streams")


def load(run):
    with open(os.path.join(HERE, f"{run}.measurements.csv")) as f:
        valid = collections.defaultdict(list)
        for r in csv.DictReader(f):
            valid[tuple(r[k] for k in KEY)] += [r] if r["status"] == "valid" else []
    return valid


runs = {run: load(run) for run in ("idle-1", "idle-2", "neighbour")}
reached = {run: {c for c, rows in v.items() if len(rows) >= 2} for run, v in runs.items()}
both = reached["idle-1"] & reached["idle-2"]
print(f"cells both idle runs brought to their minimum: {len(both)}; the neighbour run too: {len(both & reached['neighbour'])}")


def figure(run, c):
    v = [float(r["proxy_cpu_us_per_req"]) for r in runs[run][c] if r["proxy_cpu_us_per_req"]]
    return st.median(v) if v else None


cells = [c for c in runs["idle-1"] if all(figure(run, c) is not None for run in runs)]
idle = {c: st.median([figure("idle-1", c), figure("idle-2", c)]) for c in cells}
print(f"cells with a figure in all three runs: {len(cells)}")
print(f"  neighbour / idle median, median cell: {st.median(figure('neighbour', c) / idle[c] for c in cells):.3f}")
print(f"  idle-2 / idle-1, median cell:         {st.median(figure('idle-2', c) / figure('idle-1', c) for c in cells):.3f}")
