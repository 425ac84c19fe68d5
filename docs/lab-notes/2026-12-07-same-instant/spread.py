# Per cell: each side's median proxy µs/req, the spread of each side's ln and of d = ln(now/then), rows valid or disturbed.
# python3 docs/lab-notes/2026-12-07-same-instant/spread.py [MODE_DIR ...]  (default: adjacent instant; valid rows only with --valid)
import sys
import csv, math, os, statistics as st
here = os.path.dirname(os.path.abspath(__file__))
args = [a for a in sys.argv[1:] if a != '--valid']
ok = (lambda r: r['status'] == 'valid') if '--valid' in sys.argv else (lambda r: r['status'] != 'failed')
for mode in args or ['adjacent', 'instant']:
    d = os.path.join(here, mode)
    now = [r for r in csv.DictReader(open(d + '/measurements.csv')) if ok(r) and r['proxy'] != 'direct' and r['model'] == 'closed']
    then = {((r['series'], r['proxy'], r['variant']), r['repeat']): r for r in csv.DictReader(open(d + '/then/measurements.csv')) if ok(r) and r['model'] == 'closed'}
    cells = {}
    for r in now:
        t = then.get(((r['series'], r['proxy'], r['variant']), r['repeat']))
        if t:
            cells.setdefault((r['proxy'], r['variant']), []).append((float(r['proxy_cpu_us_per_req']), float(t['proxy_cpu_us_per_req']), float(r['foreign_cpu_share'])))
    print(mode)
    for (proxy, variant), v in sorted(cells.items()):
        ds = [math.log(a / b) for a, b, _ in v]
        print(f'  {proxy:8} {variant:10} n={len(v)} now {st.median(x[0] for x in v):5.1f} then {st.median(x[1] for x in v):5.1f} µs/req'
              f'  sd ln now {st.stdev(math.log(x[0]) for x in v):.3f} then {st.stdev(math.log(x[1]) for x in v):.3f} d {st.stdev(ds):.3f}'
              f'  now/then {math.exp(st.mean(ds)):.3f}  foreign {st.median(x[2] for x in v):.2f}')
