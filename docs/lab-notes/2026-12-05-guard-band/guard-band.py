"""Clean slices after a disturbed one, against clean slices far from any (issue 43, guard band).

Reads the neighbour run of docs/lab-notes/2026-12-03-slices.md (run B): its slices
(neighbour.slices.json, every window counted from its clean slices) and the two idle runs'
measurements.csv, all beside that note. Each clean slice's proxy CPU µs/req and requests
per second are divided by its cell's median over both idle runs' valid whole windows, then
grouped by where the slice sits: 1, 2 or 3 slices after the last disturbed slice of its
window, just before a disturbed one, or far from any (no disturbed slice before it, none
right after it). A slice is 0.5 s; a quick window is 4 slices.

    python3 docs/lab-notes/2026-12-05-guard-band/guard-band.py
"""
import collections
import csv
import json
import os
import statistics as st

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "2026-12-03-slices")
KEY = ("series", "proxy", "version", "variant", "key_type", "connections")


def stem(r):
    return f"{r['series']}-{r['proxy']}-{r['version']}-{r['variant']}-{r['key_type']}-c{r['connections']}-r{r['repeat']}"


idle = collections.defaultdict(lambda: {"us": [], "rps": []})
for run in ("idle-1", "idle-2"):
    with open(os.path.join(DATA, f"{run}.measurements.csv")) as f:
        for r in csv.DictReader(f):
            whole = float(r.get("counted_share") or 1) == 1
            if r["model"] == "closed" and r["status"] == "valid" and whole and r["proxy_cpu_us_per_req"]:
                idle[tuple(r[k] for k in KEY)]["us"].append(float(r["proxy_cpu_us_per_req"]))
                idle[tuple(r[k] for k in KEY)]["rps"].append(float(r["rps"]))
with open(os.path.join(DATA, "neighbour.measurements.csv")) as f:
    cell_of = {stem(r): tuple(r[k] for k in KEY) for r in csv.DictReader(f)}
with open(os.path.join(DATA, "neighbour.slices.json")) as f:
    windows = json.load(f)


def position(sl, i):
    """Where clean slice i sits: after N (slices since the last disturbed one), before, or far."""
    before = [j for j in range(i) if not sl[j]["clean"]]
    if before:
        return f"after {i - before[-1]}"
    return "just before" if i + 1 < len(sl) and not sl[i + 1]["clean"] else "far"


groups = collections.defaultdict(list)
missing = 0
for name, rec in windows.items():
    cell = cell_of.get(name)
    if cell not in idle:
        missing += 1
        continue
    base_us, base_rps = st.median(idle[cell]["us"]), st.median(idle[cell]["rps"])
    sl = rec["slices"]
    for i, s in enumerate(sl):
        if s["clean"] and s["work"]:
            ratio = (s["roles_ns"][0] / 1e3 / s["work"] / base_us, s["work"] / s["seconds"] / base_rps)
            groups[(cell[0], position(sl, i))].append(ratio)
            groups[("all", position(sl, i))].append(ratio)

ORDER = ("far", "just before", "after 1", "after 2", "after 3")
print(f"windows {len(windows)} ({missing} without an idle median); clean slices / the idle runs' cell median")
print(f"{'series':16} {'position':12} {'slices':>6} {'µs/req':>7} {'rps':>7}")
for series in sorted({s for s, _ in groups}, key=lambda s: (s == "all", s)):
    for pos in ORDER:
        v = groups.get((series, pos))
        if v:
            print(f"{series:16} {pos:12} {len(v):6} {st.median(x[0] for x in v):7.3f} {st.median(x[1] for x in v):7.3f}")

# The yardstick: how much two clean slices next to each other differ in the same window.
steps = [
    abs((b["roles_ns"][0] / b["work"]) / (a["roles_ns"][0] / a["work"]) - 1)
    for rec in windows.values()
    for a, b in zip(rec["slices"], rec["slices"][1:])
    if a["clean"] and b["clean"] and a["work"] and b["work"]
]
print(f"\nadjacent clean slices of one window, µs/req: pairs {len(steps)}, median |step| {st.median(steps):.3f}, largest {max(steps):.3f}")

# How long a backlog can last: a closed load has at most one request per connection in
# flight, so what queued during a burst is at most `connections` requests.
print("\nlongest backlog a burst can leave (closed model): connections / the idle cell's rps")
for cell in sorted({cell_of[name] for name in windows}):
    ms = 1e3 * int(cell[5]) / st.median(idle[cell]["rps"])
    print(f"  {cell[0]:16} {cell[1]:8} {cell[2]:7} {cell[3]:24} {ms:5.1f} ms ({100 * ms / 500:.0f}% of a slice)")

# What a band costs: the share each window keeps when the `band` slices after a disturbed
# one are dropped too, and how many stay counted (at least half the window, MIN_COUNTED_SHARE).
print("\nwhat a guard band costs these windows")
print(f"{'band':>4} {'slices dropped as guard':>24} {'windows still counted':>22} {'mean share':>11}")
for band in (0, 1, 2):
    dropped, shares = 0, []
    for rec in windows.values():
        sl = rec["slices"]
        guarded = [s["clean"] and not any(not sl[j]["clean"] for j in range(max(0, i - band), i)) for i, s in enumerate(sl)]
        dropped += sum(s["clean"] for s in sl) - sum(guarded)
        shares.append(sum(s["seconds"] for s, g in zip(sl, guarded) if g) / sum(s["seconds"] for s in sl))
    print(f"{band:4} {dropped:24} {sum(x >= 0.5 - 1e-9 for x in shares):>15} of {len(shares)} {st.mean(shares):11.3f}")
