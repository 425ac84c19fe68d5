"""Clean slices after a disturbed one, per series, in the tls busy-machine runs (issue 43, guard band).

The companion of guard-band.py (closed windows, pooling series), for the tls series run beside a
neighbour: closed (tls-ceiling), open model (tls-open; tls-open-half and tls-calibration too,
shown apart: their cells drop requests idle or not) and handshakes (tls-handshake).

Data: results/busy-tls/ and results/busy-tls-2/, each with idle-1/, neighbour/, idle-2/. results/
is not committed; the two folders came from (lab note 2026-12-05-busy-tls.md, harness b8f2307 and
5ea95e7 respectively)

    npx zx bench/busy-machine.mjs --profile quick --series tls --proxies haproxy,nginx --runtime native --out results/busy-tls
    npx zx bench/busy-machine.mjs --profile quick --series tls --proxies haproxy,nginx --runtime native --out results/busy-tls-2

Every window of a neighbour run disturbed as a whole kept its slices in
neighbour/raw/<stem>.slices.json (slicesRecord, lib/measure/slices.ts); the stem is repeatStem's
(lib/data/raw-files.ts: open rows carry their rate). The proxy is roles_ns[0] in both kinds of
window: closed windows read rolesOf's order (proxy, backend, generator); generator windows read
[...started, generator] with started = watched roles then roles already started, and the watched
list starts with the proxy (open.ts: [proxy, backend]; handshake.ts: [proxy]). The script checks
it against the rows (roles_ns[0] per unit against proxy_cpu_us_per_req, roles_ns[1] against the
backend's).

Each clean slice's proxy CPU µs per unit of work (the backend's requests; one GET per handshake)
and its units per second are divided by a per-cell baseline:
  closed (tls-ceiling)  the idle runs' median over valid whole windows (counted_share 1 or empty),
                        as guard-band.py does;
  handshakes            the same: a handshake run's first slice costs what the later ones do (no
                        connections to set up beyond the handshakes, which are the unit), so the
                        idle whole windows are comparable per slice (checked below);
  open model            the median µs and rps of the cell's steady slices in the neighbour run
                        (clean, not the first, no disturbed slice before them; the cell includes
                        its rate): the first slice holds the ramp (connections and their TLS
                        handshakes), which the idle whole windows spread over the run, so those
                        are not comparable per slice (checked below); the idle runs also ran
                        other rates. In tls-open the steady rps is the target rate.
The slices are grouped by where they sit in their window: 1, 2 or 3 slices after the last
disturbed one, just before a disturbed one, far from any (none before it, none right after it);
a generator window's first slice is its own group (the ramp), and disturbed slices are shown for
context (their work: did the load keep its rate during the burst?). The noise: the far group's
median absolute deviation (MAD), the MAD between whole windows of a cell (after and far slices
mostly sit in different windows), and the median step between adjacent clean slices of one window.

    python3 docs/lab-notes/2026-12-05-guard-band/guard-band-tls.py
"""
import collections
import csv
import glob
import json
import os
import statistics as st

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
FOLDERS = ("results/busy-tls", "results/busy-tls-2")
MAIN = ("tls-ceiling", "tls-open", "tls-handshake")
OVERLOADED = ("tls-open-half", "tls-calibration")
PROXY, BACKEND = 0, 1
ORDER = ("first", "far", "just before", "after 1", "after 2", "after 3", "disturbed")


def read_rows(folder, run):
    rows = []
    for name, kind in (("measurements.csv", None), ("handshakes.csv", "handshake")):
        with open(os.path.join(ROOT, folder, run, name)) as f:
            for r in csv.DictReader(f):
                k = kind or r["model"]
                us = r["proxy_cpu_us_per_handshake"] if k == "handshake" else r["proxy_cpu_us_per_req"]
                rps = r["rate"] if k == "handshake" else r["rps"]
                backend = r.get("backend_cpu_us_per_req") or ""
                rows.append(dict(r, kind=k, us=float(us) if us else None, rps=float(rps) if rps else None,
                                 backend_us=float(backend) if backend else None))
    return rows


def cell(folder, r):
    return (folder, r["series"], r["proxy"], r["version"], r["variant"], r["key_type"], r["connections"])


def stem(r):
    """repeatStem (lib/data/raw-files.ts)."""
    s = f"{r['series']}-{r['proxy']}-{r['version']}-{r['variant']}-{r['key_type']}-c{r['connections']}"
    s += f"-json{r['body_bytes']}" if r.get("body_bytes") else ""
    s += f"-m{r['streams']}" if r.get("streams") else ""
    s += f"-resume-{r['resumption']}" if r.get("resumption") else ""
    s += f"-{r['target_rps']}rps" if r["kind"] == "open" else ""
    return f"{s}-r{r['repeat']}"


def whole_valid(r):
    return r["status"] == "valid" and float(r.get("counted_share") or 1) == 1 and r["us"] and r["rps"]


def med(xs):
    return st.median(xs) if xs else None


def iqr(xs):
    if len(xs) < 2:
        return "-"
    q = st.quantiles(xs, n=4, method="inclusive")
    return f"{q[0]:.2f}-{q[2]:.2f}"


def mad(xs):
    if len(xs) < 2:
        return None
    m = st.median(xs)
    return st.median(abs(x - m) for x in xs)


# Idle baselines per cell (both idle runs of the same folder), and the neighbour windows.
idle = collections.defaultdict(lambda: {"us": [], "rps": []})
windows = []  # (folder, row, slices record)
for folder in FOLDERS:
    for run in ("idle-1", "idle-2"):
        for r in read_rows(folder, run):
            if whole_valid(r):
                idle[cell(folder, r)]["us"].append(r["us"])
                idle[cell(folder, r)]["rps"].append(r["rps"])
    by_stem = {stem(r): r for r in read_rows(folder, "neighbour")}
    for path in sorted(glob.glob(os.path.join(ROOT, folder, "neighbour", "raw", "*.slices.json"))):
        name = os.path.basename(path)[: -len(".slices.json")]
        if name not in by_stem:
            raise SystemExit(f"no row for {folder}/neighbour/raw/{name}")
        with open(path) as f:
            windows.append((folder, by_stem[name], json.load(f)))


def per_unit(s, j=PROXY):
    return s["roles_ns"][j] / 1e3 / s["work"]


def ramp(row):
    return row["kind"] != "closed"


# Check the proxy's index: the whole window's roles_ns[j] per unit against the row's columns.
print("roles_ns index check: a window's roles_ns[j] per unit over all its slices / the row's column, median (range)")
for series in MAIN + OVERLOADED:
    for j, col in ((PROXY, "us"), (BACKEND, "backend_us")):
        xs = []
        for _, row, rec in windows:
            sl = [s for s in rec["slices"] if s["work"]]
            if row["series"] == series and row[col] and sl:
                xs.append(sum(s["roles_ns"][j] for s in sl) / 1e3 / sum(s["work"] for s in sl) / row[col])
        if xs:
            label = "proxy" if j == PROXY else "backend"
            print(f"  {series:16} roles_ns[{j}] / {label:7} column  {st.median(xs):5.2f} ({min(xs):.2f}-{max(xs):.2f})  windows {len(xs)}")

# Steady slices of the neighbour run's generator windows, per cell and rate: clean, not the first,
# and no disturbed slice before them (so the slices after a burst are measured against the others,
# not against themselves); their µs per unit and their units per second.
steady = collections.defaultdict(list)
steady_rps = collections.defaultdict(list)
for folder, row, rec in windows:
    if ramp(row):
        for i, s in enumerate(rec["slices"]):
            if i > 0 and s["clean"] and s["work"] and all(x["clean"] for x in rec["slices"][:i]):
                steady[cell(folder, row) + (row.get("target_rps") or "",)].append(per_unit(s))
                steady_rps[cell(folder, row) + (row.get("target_rps") or "",)].append(s["work"] / s["seconds"])


def steady_base(folder, row, of=steady):
    return med(of.get(cell(folder, row) + (row.get("target_rps") or "",), []))


# Whether the idle whole windows are comparable per slice (generator series).
print("\nwhy the baselines (generator windows): per cell, medians over cells (range)")
print(f"  {'series':16} {'cells':>5} {'first slice / steady':>22} {'idle whole / steady':>22} {'steady rps / target':>22}")
for series in MAIN + OVERLOADED:
    firsts, idles, cells, targets = [], [], set(), []
    for folder, row, rec in windows:
        if row["series"] != series or not ramp(row):
            continue
        base = steady_base(folder, row)
        s0 = rec["slices"][0]
        if base and s0["clean"] and s0["work"]:
            firsts.append(per_unit(s0) / base)
        c = cell(folder, row)
        if base and idle[c]["us"] and c not in cells:
            idles.append(med(idle[c]["us"]) / base)
        if base and row["kind"] == "open" and c not in cells:
            targets.append(steady_base(folder, row, steady_rps) / float(row["target_rps"]))
        cells.add(c)
    rng = lambda xs: f"{med(xs):5.2f} ({min(xs):.2f}-{max(xs):.2f})" if xs else "-"
    if firsts or idles:
        print(f"  {series:16} {len(cells):5} {rng(firsts):>22} {rng(idles):>22} {rng(targets):>22}")


def position(sl, i, generator):
    if not sl[i]["clean"]:
        return None if generator and i == 0 else "disturbed"
    if generator and i == 0:
        return "first"
    before = [j for j in range(i) if not sl[j]["clean"]]
    if before:
        return f"after {i - before[-1]}"
    return "just before" if i + 1 < len(sl) and not sl[i + 1]["clean"] else "far"


groups = collections.defaultdict(list)  # (series, position) -> [(µs ratio, rps ratio)]
steps = collections.defaultdict(list)
patterns = collections.defaultdict(collections.Counter)
skipped = collections.Counter()
for folder, row, rec in windows:
    series, sl, gen = row["series"], rec["slices"], ramp(row)
    patterns[series]["".join("." if s["clean"] else "X" for s in sl)] += 1
    c = cell(folder, row)
    if row["kind"] == "open":
        base_us, base_rps = steady_base(folder, row), steady_base(folder, row, steady_rps)
    else:
        base_us, base_rps = med(idle[c]["us"]), med(idle[c]["rps"])
    if not base_us or not base_rps:
        n = sum(1 for i, s in enumerate(sl) if s["clean"] and s["work"] and (i or not gen))
        if n:
            skipped[series] += n
        continue
    for i, s in enumerate(sl):
        pos = position(sl, i, gen)
        if pos and s["work"]:
            groups[(series, pos)].append((per_unit(s) / base_us, s["work"] / s["seconds"] / base_rps))
    for i in range(1 if gen else 0, len(sl) - 1):
        a, b = sl[i], sl[i + 1]
        if a["clean"] and b["clean"] and a["work"] and b["work"]:
            steps[series].append(abs(per_unit(b) / per_unit(a) - 1))


# Between windows: after and far slices mostly come from different windows, so the spread of
# whole windows around their cell's baseline is noise too. Closed and handshakes: the idle whole
# windows / their cell median; open model: each neighbour window's median steady slice / the cell's.
between = collections.defaultdict(list)  # series -> [(µs ratio, rps ratio)]
for folder in FOLDERS:
    for run in ("idle-1", "idle-2"):
        for r in read_rows(folder, run):
            c = cell(folder, r)
            if r["kind"] in ("closed", "handshake") and whole_valid(r) and idle[c]["us"]:
                between[r["series"]].append((r["us"] / med(idle[c]["us"]), r["rps"] / med(idle[c]["rps"])))
for folder, row, rec in windows:
    if row["kind"] == "open" and steady_base(folder, row):
        sl = [s for i, s in enumerate(rec["slices"]) if i > 0 and s["clean"] and s["work"]]
        if sl:
            between[row["series"]].append((med([per_unit(s) for s in sl]) / steady_base(folder, row),
                                           med([s["work"] / s["seconds"] for s in sl]) / steady_base(folder, row, steady_rps)))


def table(serieses, title):
    print(f"\n{title}")
    print(f"{'series':15} {'position':11} {'n':>3} {'µs/unit':>7} {'IQR':>11} {'rps':>6} {'IQR':>11}")
    for series in serieses:
        for pos in ORDER:
            v = groups.get((series, pos))
            if v:
                us, rps = [x[0] for x in v], [x[1] for x in v]
                print(f"{series:15} {pos:11} {len(v):3} {med(us):7.3f} {iqr(us):>11} {med(rps):6.3f} {iqr(rps):>11}")


def verdicts(serieses):
    ms = lambda m: f"{m:.3f}" if m is not None else "-"
    print("noise: MAD of the far group; MAD between windows (n windows); median |step| between adjacent clean slices")
    print(f"{'series':15} {'far MAD µs':>10} {'rps':>6} {'between µs':>10} {'rps':>6} {'(n)':>4} {'|step| µs':>9} {'(n)':>4}")
    for series in serieses:
        far = [x for x in groups.get((series, "far"), [])]
        b = between[series]
        print(f"{series:15} {ms(mad([x[0] for x in far])):>10} {ms(mad([x[1] for x in far])):>6} "
              f"{ms(mad([x[0] for x in b])):>10} {ms(mad([x[1] for x in b])):>6} {len(b):4} "
              f"{ms(med(steps[series])):>9} {len(steps[series]):4}")
    print("after k - far, medians (in far MADs / in between-window MADs)")
    for series in serieses:
        far, b = groups.get((series, "far"), []), between[series]
        parts = []
        for pos in ("after 1", "after 2", "after 3"):
            v = groups.get((series, pos))
            if v and far:
                out = []
                for j, unit in ((0, "µs"), (1, "rps")):
                    d = med([x[j] for x in v]) - med([x[j] for x in far])
                    m1, m2 = mad([x[j] for x in far]), mad([x[j] for x in b])
                    out.append(f"{unit} {d:+.3f} ({d / m1 if m1 else float('nan'):+.1f} / {d / m2 if m2 else float('nan'):+.1f})")
                parts.append(f"{pos} (n {len(v)}): " + ", ".join(out))
            elif v:
                parts.append(f"{pos}: no far slice")
        print(f"  {series:15} " + ("\n  " + " " * 16).join(parts or ["no clean slice after a burst"]))


print(f"\nwindows {len(windows)}; clean slices left out, their cell having no baseline: {dict(skipped) or 0}")
print("slice patterns (. clean, X disturbed), windows:")
for series in MAIN + OVERLOADED:
    print(f"  {series:16} " + "  ".join(f"{p} {n}" for p, n in sorted(patterns[series].items(), key=lambda x: (-x[1], x[0]))))

table(MAIN, "clean slices / the cell's baseline (closed, handshakes: idle whole windows; open: its steady slices)")
print()
verdicts(MAIN)
# The slices after a burst in the main series, one by one, against their own window and cell.
print("\nthe clean slices after a burst, one by one (µs, rps: / the cell's baseline)")
print(f"  {'window':58} {'slices':7} {'at':>2} {'µs':>6} {'rps':>6} {'window, disturbed µs':>21} {'cell idle windows µs':>21} {'foreign':>7}")
for folder, row, rec in windows:
    sl, c = rec["slices"], cell(folder, row)
    if row["series"] not in MAIN or row["kind"] == "open":
        continue
    base_us, base_rps = med(idle[c]["us"]), med(idle[c]["rps"])
    for i, s in enumerate(sl):
        if (position(sl, i, ramp(row)) or "").startswith("after"):
            dist = [per_unit(x) / base_us for x in sl if not x["clean"] and x["work"]]
            ids = [u / base_us for u in idle[c]["us"]]
            print(f"  {folder[8:] + ' ' + stem(row):58} {''.join('.' if x['clean'] else 'X' for x in sl):7} {i + 1:2} "
                  f"{per_unit(s) / base_us:6.3f} {s['work'] / s['seconds'] / base_rps:6.3f} "
                  f"{f'{min(dist):.3f}-{max(dist):.3f}':>21} {f'{min(ids):.3f}-{max(ids):.3f}':>21} {s['foreign_cpu_share']:7.3f}")

table(OVERLOADED, "overloaded series (their rows drop >= 1% idle or not: not a guard-band question)")
print()
verdicts(OVERLOADED)

# What a band costs: counted windows (counted_share set) that fall under half their length.
print("\nwhat a guard band costs the counted windows")
print(f"{'series':16} {'band':>4} {'clean slices dropped':>21} {'counted windows still counted':>30}")
for series in MAIN + OVERLOADED:
    for band in (1, 2):
        dropped, kept, counted = 0, 0, 0
        for _, row, rec in windows:
            if row["series"] != series:
                continue
            sl = rec["slices"]
            guarded = [s["clean"] and not any(not sl[j]["clean"] for j in range(max(0, i - band), i)) for i, s in enumerate(sl)]
            dropped += sum(s["clean"] for s in sl) - sum(guarded)
            if rec["counted_share"] is not None:
                counted += 1
                kept += sum(s["seconds"] for s, g in zip(sl, guarded) if g) >= 0.5 * sum(s["seconds"] for s in sl) - 1e-9
        print(f"{series:16} {band:4} {dropped:21} {kept:>22} of {counted}")
