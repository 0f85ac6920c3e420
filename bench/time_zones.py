"""Named time zones and groupby.resample: zambezi vs pandas.

    python bench/time_zones.py [--rows 1000000] [--groups 100000] [--repeat 3]

Cases, on --rows rows:
(a) tz_convert("UTC" -> "Europe/Berlin") then dt.hour (wall-time fields);
(b) dt.tz_localize("America/New_York", ambiguous="NaT",
    nonexistent="shift_forward") of naive times over 30 years;
(c) groupby(k).resample("D").sum() with --groups int64 keys over 30 days
    (pandas resamples group by group).

Prints the best time of --repeat runs per case and engine, the ratio, the
command and the machine (nproc).  Measurements, not tests.
"""
import argparse
import os
import sys
import time

import numpy as np
import pandas as pd

import zambezi as zb


def best(fn, repeat):
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    n = a.rows
    secs = rng.integers(0, 30 * 365 * 86400, n) + 10**9
    utc = pd.Series(pd.to_datetime(secs, unit="s")).dt.tz_localize("UTC")
    zutc = zb.Series(utc)
    naive = pd.Series(pd.to_datetime(secs, unit="s"))
    znaive = zb.Series(naive)
    t = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 30 * 86400, n), unit="s")
    df = pd.DataFrame({"k": rng.integers(0, a.groups, n), "t": t, "v": rng.normal(size=n)})
    zdf = zb.DataFrame(df)
    kw = dict(ambiguous="NaT", nonexistent="shift_forward")
    cases = [
        ("(a) tz_convert + hour", lambda: zutc.dt.tz_convert("Europe/Berlin").dt.hour,
         lambda: utc.dt.tz_convert("Europe/Berlin").dt.hour),
        ("(b) tz_localize", lambda: znaive.dt.tz_localize("America/New_York", **kw),
         lambda: naive.dt.tz_localize("America/New_York", **kw)),
        ("(c) groupby.resample D sum",
         lambda: zdf.groupby("k").resample("D", on="t")["v"].sum(),
         lambda: df.groupby("k").resample("D", on="t")["v"].sum()),
    ]
    print(f"python {' '.join(sys.argv)}  (nproc {os.cpu_count()})")
    for name, z, p in cases:
        tz_, tp = best(z, a.repeat), best(p, a.repeat)
        print(f"{name:30s} zambezi {tz_:8.3f} s  pandas {tp:8.3f} s  "
              f"pandas/zambezi {tp / tz_:6.1f}x")


if __name__ == "__main__":
    main()
