# The same condition (untaxed, reference on) in two benches 15 minutes apart: reference-cost.csv's
# "with" rows (23:00-23:04) and tax-abab.csv's "as-is" rows (23:17-23:21). Per cell: median cost,
# its ratio raw, in the direct row's unit and in the same-instant reference's unit.
# Run: python3 docs/lab-notes/2026-12-01-machine-shift/two-runs.py
import csv, os, statistics as st
here = os.path.dirname(os.path.abspath(__file__))
def load(f, cond):
    d = {}
    for r in csv.DictReader(open(os.path.join(here, f))):
        if r['condition'] != cond or r['status'] != 'valid':
            continue
        cost = float(r['backend_cpu_us_per_req'] if r['proxy'] == 'direct' else r['proxy_cpu_us_per_req'])
        d.setdefault(r['proxy'] + ' ' + r['variant'], []).append((cost, float(r['proxy_cpu_per_reference'])))
    return {k: (st.median(x[0] for x in v), st.median(x[1] for x in v)) for k, v in d.items()}
a, b = load('reference-cost.csv', 'with'), load('tax-abab.csv', 'as-is')
da, db = a['direct direct'][0], b['direct direct'][0]
raw, direct, ref = [], [], []
print('cell | µs/req first | second | raw | direct unit | same-instant reference')
for k in a:
    if k not in b:
        continue
    raw.append(b[k][0] / a[k][0]); ref.append(b[k][1] / a[k][1])
    d = None if k == 'direct direct' else (b[k][0] / db) / (a[k][0] / da)
    if d is not None:
        direct.append(d)
    print(f"{k} | {a[k][0]:.1f} | {b[k][0]:.1f} | {raw[-1]:.3f} | {'-' if d is None else f'{d:.3f}'} | {ref[-1]:.3f}")
within = lambda xs, t: f"{sum(abs(x - 1) <= t for x in xs)}/{len(xs)}"
for name, xs in [('raw', raw), ('direct unit', direct), ('same-instant reference', ref)]:
    print(f"{name}: median {st.median(xs):.3f}, within ±15% {within(xs, .15)}, within ±10% {within(xs, .10)}")
