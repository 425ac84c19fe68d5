"""Is a run cheaper later than its planned window? Quiet h2 runs with 2 s and 4 s windows
(each after the same 0.5 s warm-up), interleaved d2, d4, d2, d4: the 4 s window's proxy CPU
per request over the 2 s window's, per cell (medians of each duration's valid rows).

    python3 docs/lab-notes/2026-12-06-slices-everywhere/later/ratio.py
"""
import collections
import csv
import glob
import os
import statistics as st

HERE = os.path.dirname(os.path.abspath(__file__))
KEY = ("series", "proxy", "variant", "key_type", "connections", "streams")
by = {2: collections.defaultdict(list), 4: collections.defaultdict(list)}
for f in sorted(glob.glob(os.path.join(HERE, "d*-*.measurements.csv"))):
    d = int(os.path.basename(f)[1])
    for r in csv.DictReader(open(f)):
        if r["status"] == "valid" and r["proxy_cpu_us_per_req"]:
            by[d][tuple(r[k] for k in KEY)].append(float(r["proxy_cpu_us_per_req"]))
ratios = []
for cell in sorted(by[2]):
    if by[4].get(cell):
        a, b = st.median(by[2][cell]), st.median(by[4][cell])
        ratios.append(b / a)
        print(f"{' '.join(cell[:3]):24} 2 s {a:8.2f} ({len(by[2][cell])})  4 s {b:8.2f} ({len(by[4][cell])})  4 s / 2 s {b / a:.3f}")
print(f"median cell 4 s / 2 s: {st.median(ratios):.3f} over {len(ratios)} cells")
