"""First slice against the later clean ones, per kind of window (lab note 2026-12-05-busy-tls).

usage: python3 ramp.py <folder with *.slices.json>
For every window of the generator's whole run (not tls-ceiling: closed, after a warm-up) whose
first slice is clean: its proxy CPU per unit of work over the clean slices after it.
"""
import glob
import json
import statistics
import sys
from collections import defaultdict

folder = sys.argv[1]
ratios = defaultdict(list)
for f in sorted(glob.glob(f"{folder}/*.slices.json")):
    name = f.split("/")[-1]
    series = name.split("-haproxy-")[0].split("-nginx-")[0]
    if series == "tls-ceiling":
        continue
    s = json.load(open(f))["slices"]
    if not s[0]["clean"] or s[0]["work"] <= 0:
        continue
    later = [x for x in s[1:] if x["clean"] and x["work"] > 0]
    if not later:
        continue
    first = s[0]["roles_ns"][0] / s[0]["work"]
    steady = sum(x["roles_ns"][0] for x in later) / sum(x["work"] for x in later)
    ratios[series].append(first / steady)
print(f"{'series':16} {'windows':>7} {'first / steady, median':>24} {'max':>8}")
for series, xs in sorted(ratios.items()):
    print(f"{series:16} {len(xs):7d} {statistics.median(xs):24.2f} {max(xs):8.2f}")
