"""Counted rows against whole ones in the 14:20 UTC bench of 2026-12-03-slices.md.

Reads the three runs' measurements.csv and the neighbour run's slices (raw/*.slices.json,
gathered into neighbour.slices.json) beside this file. Each closed-model row's proxy CPU
µs/req is divided by its cell's median over both idle runs' whole windows.

    python3 docs/lab-notes/2026-12-03-slices/counted-rows.py
"""
import collections
import csv
import json
import os
import statistics as st

HERE = os.path.dirname(os.path.abspath(__file__))


def rows(run):
    with open(os.path.join(HERE, f"{run}.measurements.csv")) as f:
        return [r for r in csv.DictReader(f) if r["model"] == "closed" and r["status"] == "valid" and r["proxy_cpu_us_per_req"]]


def cell(r):
    return (r["series"], r["proxy"], r["version"], r["variant"], r["tls"] if "tls" in r else "", r["connections"])


def share(r):
    return float(r.get("counted_share") or 1)


def stem(r):
    return f"{r['series']}-{r['proxy']}-{r['version']}-{r['variant']}"


idle = collections.defaultdict(list)
by_run = {}
for run in ("idle-1", "idle-2"):
    by_run[run] = collections.defaultdict(list)
    for r in rows(run):
        if share(r) == 1:
            idle[cell(r)].append(float(r["proxy_cpu_us_per_req"]))
            by_run[run][cell(r)].append(float(r["proxy_cpu_us_per_req"]))
base = {k: st.median(v) for k, v in idle.items()}

kinds = collections.defaultdict(list)
for r in rows("neighbour"):
    if cell(r) in base:
        kinds["counted" if share(r) < 1 else "whole"].append(float(r["proxy_cpu_us_per_req"]) / base[cell(r)])
print("neighbour run, valid closed rows / the idle runs' cell median")
for kind in ("whole", "counted"):
    v = kinds[kind]
    print(f"  {kind:8} rows {len(v):2}  median ratio {st.median(v):.3f}  median |ratio - 1| {st.median(abs(x - 1) for x in v):.3f}")
pairs = [st.median(by_run["idle-2"][k]) / st.median(by_run["idle-1"][k]) for k in by_run["idle-1"] if k in by_run["idle-2"]]
print(f"  idle-2 / idle-1 per cell: cells {len(pairs)}  median {st.median(pairs):.3f}  median |ratio - 1| {st.median(abs(x - 1) for x in pairs):.3f}")

with open(os.path.join(HERE, "neighbour.slices.json")) as f:
    windows = json.load(f)
counted = {(stem(r), r["repeat"]): r for r in rows("neighbour") if share(r) < 1}
parts = collections.defaultdict(list)
whole_clean = []
for name, rec in windows.items():
    key = next((k for k in counted if name.startswith(k[0]) and name.endswith(f"-r{k[1]}")), None)
    if key is None or cell(counted[key]) not in base:
        continue
    m, sl = base[cell(counted[key])], rec["slices"]

    def cost(pick):
        s = [x for i, x in enumerate(sl) if pick(i, x)]
        work = sum(x["work"] for x in s)
        return sum(x["roles_ns"][0] for x in s) / 1e3 / work / m if work else None

    seconds = sum(x["seconds"] for x in sl)
    mean = lambda f: sum((x[f] or 0) * x["seconds"] for x in sl) / seconds
    if mean("foreign_cpu_share") <= 0.1 and mean("load_foreign_cpu_share") <= 0.1 and mean("steal_share") <= 0.02:
        whole_clean.append(name)
    parts["clean slices (what the row counts)"].append(cost(lambda i, x: x["clean"]))
    parts["clean, not next to a disturbed one"].append(cost(lambda i, x: x["clean"] and all(sl[j]["clean"] for j in (i - 1, i + 1) if 0 <= j < len(sl))))
    parts["disturbed slices"].append(cost(lambda i, x: not x["clean"]))
    parts["the whole window"].append(cost(lambda i, x: True))
print("the neighbour run's counted windows, part by part / the idle runs' cell median")
print(f"  (of {len(parts['the whole window'])} windows, {len(whole_clean)} were under the thresholds as a whole: counted whole since)")
for name, v in parts.items():
    v = [x for x in v if x is not None]
    print(f"  {name:36} windows {len(v):2}  median ratio {st.median(v):.3f}")
