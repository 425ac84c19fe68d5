"""Counted rows of the neighbour run against the two idle runs (lab note 2026-12-05-busy-tls).

usage: python3 counted.py <folder with idle-1/ neighbour/ idle-2/>
Each row of the neighbour run counted from its clean slices (counted_share < 1), and for
comparison each whole valid row of it, divided by the median of the idle runs' valid rows
of its cell.
"""
import csv
import statistics
import sys

folder = sys.argv[1]
FIGURE = {"measurements.csv": "proxy_cpu_us_per_req", "handshakes.csv": "proxy_cpu_us_per_handshake"}
KEY = ["series", "proxy", "version", "variant", "key_type", "connections", "target_rps"]


def rows(run, table):
    with open(f"{folder}/{run}/{table}") as f:
        return list(csv.DictReader(f))


def cell(r):
    # An open-model series runs at a rate each run derives from its own ceilings: one cell across runs.
    # Calibration steps are a ladder of rates within a run: one cell per rate.
    return tuple("" if k == "target_rps" and r["series"] != "tls-calibration" else r.get(k, "") for k in KEY)


for kind in ["counted", "whole"]:
    ratios = []
    print(f"\n{kind} rows of the neighbour run / the idle runs' cell median")
    for table, fig in FIGURE.items():
        idle = {}
        for run in ["idle-1", "idle-2"]:
            for r in rows(run, table):
                if r["status"] == "valid" and r[fig]:
                    idle.setdefault(cell(r), []).append(float(r[fig]))
        for r in rows("neighbour", table):
            share = float(r.get("counted_share") or 1)
            if r["status"] != "valid" or not r[fig] or cell(r) not in idle:
                continue
            if (kind == "counted") != (share < 1):
                continue
            x = float(r[fig]) / statistics.median(idle[cell(r)])
            ratios.append(x)
            if kind == "counted":
                print(f"  {r['series']:16} {r['proxy']:8} {r['key_type']:8} r{r['repeat']} share {share:.2f}  {x:.3f}")
    if ratios:
        print(f"  {kind}: {len(ratios)} rows, median {statistics.median(ratios):.3f}, median |x - 1| {statistics.median(abs(x - 1) for x in ratios):.3f}, worst {max(abs(x - 1) for x in ratios):.3f}")
