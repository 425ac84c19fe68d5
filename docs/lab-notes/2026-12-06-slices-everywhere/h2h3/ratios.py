"""Neighbour-run rows of the h2/h3 busy run against their cell's idle median, counted (from clean slices) or whole.

    python3 docs/lab-notes/2026-12-06-slices-everywhere/h2h3/ratios.py
"""
import collections
import csv
import os
import statistics as st

HERE = os.path.dirname(os.path.abspath(__file__))
KEY = ("series", "proxy", "variant", "key_type", "connections", "streams")


def rows(run):
    with open(os.path.join(HERE, f"{run}.measurements.csv")) as f:
        by = collections.defaultdict(list)
        for r in csv.DictReader(f):
            if r["status"] == "valid" and r["proxy_cpu_us_per_req"]:
                by[tuple(r[k] for k in KEY)].append(r)
        return by


idle1, idle2, busy = rows("idle-1"), rows("idle-2"), rows("neighbour")
ratios = {"counted": [], "whole": []}
for cell, rs in sorted(busy.items()):
    idle = st.median([float(r["proxy_cpu_us_per_req"]) for r in idle1.get(cell, []) + idle2.get(cell, [])])
    for r in rs:
        kind = "counted" if float(r["counted_share"]) < 1 else "whole"
        ratios[kind].append(float(r["proxy_cpu_us_per_req"]) / idle)
        print(f"{' '.join(cell[:3]):28} r{r['repeat']} {kind:8} {float(r['proxy_cpu_us_per_req']) / idle:.3f}")
for kind, v in ratios.items():
    print(f"{kind}: {len(v)} rows, median {st.median(v):.3f}, range {min(v):.3f}-{max(v):.3f}")
