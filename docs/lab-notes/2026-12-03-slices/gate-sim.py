"""What the wait before a window buys against bench/busy-machine.mjs's neighbour (2026-12-03-slices.md).

A model, not a measurement: the neighbour spins for U(1, 3) s, then sleeps 1.5x that
(share 0.4, lib/measure/neighbour.ts). A window is the quick profile's (generator start
0.15 s, warm-up 0.5 s, window 2 s in 0.5 s slices, tail 0.5 s, then about 1.2 s to tear the
stack down and start the next). The gate polls every 0.25 s until the core was quiet for
the settle time. A slice with more than 0.01 s of burst in it is disturbed; the window is
clean (no slice disturbed), counted (at least half its slices clean) or disturbed.

    python3 docs/lab-notes/2026-12-03-slices/gate-sim.py
"""
import bisect
import random


def bursts(total_s):
    t, starts, ends = random.uniform(0, 3), [], []
    while t < total_s:
        b = random.uniform(1, 3)
        starts.append(t)
        ends.append(t + b)
        t += b + 1.5 * b
    return starts, ends


def busy(bs, a, b):
    starts, ends = bs
    i, total = max(0, bisect.bisect_right(starts, a) - 1), 0.0
    while i < len(starts) and starts[i] < b:
        total += max(0.0, min(b, ends[i]) - max(a, starts[i]))
        i += 1
    return total


def run(settle_s, after_counted, watchful, windows=20000, warmup=0.5, window=2.0, tail=0.5, between=1.2, poll=0.25, lag=0.15):
    bs = bursts(windows * 20)
    t, owed, waited = 0.0, 0, 0.0
    out = {"clean": 0, "counted": 0, "disturbed": 0}
    for _ in range(windows):
        if owed > 0:
            owed -= 1
            quiet, w0 = 0.0, t
            while quiet < settle_s and t - w0 < 15:
                t += poll
                quiet = 0.0 if busy(bs, t - poll, t) > 0.01 else quiet + poll
            waited += t - w0
        t += lag + warmup
        n = int(window / 0.5)
        clean = sum(busy(bs, t + k * 0.5, t + (k + 1) * 0.5) <= 0.01 for k in range(n))
        t += window + tail + between
        if clean == n:
            out["clean"] += 1
        elif clean >= n / 2:
            out["counted"] += 1
            if after_counted:
                owed = watchful
        else:
            out["disturbed"] += 1
            owed = watchful
    return {k: v / windows for k, v in out.items()}, waited / windows, t / windows


random.seed(1)
print("gate                                   settle  clean  counted  disturbed  wait/window  wall/window")
for name, after_counted, watchful in [("after a disturbed window, 1 window", False, 1), ("after disturbed or counted, 3 windows", True, 3)]:
    for settle in (1.5, 0.5):
        shares, wait, wall = run(settle, after_counted, watchful)
        print(f"{name:38} {settle:4.1f} s  {shares['clean']:5.0%}  {shares['counted']:7.0%}  {shares['disturbed']:9.0%}  {wait:9.2f} s  {wall:9.2f} s")
