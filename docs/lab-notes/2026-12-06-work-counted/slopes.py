"""Recomputes each row's rounds (raw slopes) from the batches in raw/*.work.json: python3 slopes.py"""
import glob
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
for f in sorted(glob.glob(os.path.join(here, 'raw', '*.work.json'))):
    d = json.load(open(f))
    slopes = [(r['large']['instructions'] - r['small']['instructions']) / (r['large']['units'] - r['small']['units']) for r in d['rounds']]
    small = [r['small']['instructions'] for r in d['rounds']]
    large = [r['large']['instructions'] for r in d['rounds']]
    gc = [(r['small']['gcCycles'], r['large']['gcCycles']) for r in d['rounds']]
    fit = d['fit']['perUnit'] if d['fit'] else None
    print(f"{os.path.basename(f)[:-10]:45s} fit {fit:>10.0f}  raw slopes {[round(s) for s in slopes]}  small {small}  large {large}  gc {gc}")
