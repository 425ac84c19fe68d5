"""Each clean slice's proxy CPU per request in the neighbour run's counted h2/h3 windows, by its
distance from the last disturbed slice (C1 right after one; C100: none before it in the window).

    python3 docs/lab-notes/2026-12-06-slices-everywhere/h2h3/slices.py
"""
import glob
import json
import os

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "neighbour-slices")
for f in sorted(glob.glob(os.path.join(HERE, "*.slices.json"))):
    d = json.load(open(f))
    since, out = 99, []
    for s in d["slices"]:
        since = since + 1 if s["clean"] else 0
        us = s["roles_ns"][0] / 1e3 / s["work"] if s["work"] else float("nan")
        out.append(f"{'C' + str(since) if s['clean'] else 'D'}:{us:.0f}")
    print(f"{os.path.basename(f)[:44]:44} counted {d['counted_share']}  " + " ".join(out))
