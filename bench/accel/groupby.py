"""db-benchmark group-by q1-q5 written as plain pandas code, as the
benchmark's pandas solution writes them (read_csv, then groupby(...).agg
with as_index=False, sort=False, observed=True, dropna=False).

    python bench/accel/groupby.py G1.csv                      # plain pandas
    python -m zambezi.pandas bench/accel/groupby.py G1.csv    # accelerated

Prints each answer's shape and column sums (rounded to 9 significant
digits: floating-point sums may differ in the last bits) on stdout, and the
seconds of the read and of each question (best of --repeat) on stderr as
JSON.  bench/accel/run.py runs both ways and compares.
"""
import json
import sys
import time

import pandas as pd

path = sys.argv[1]
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 2
times = {}
t0 = time.perf_counter()
x = pd.read_csv(path)
times["read_csv"] = time.perf_counter() - t0

QUESTIONS = {
    "q1": lambda: x.groupby("id1", as_index=False, sort=False, observed=True,
                            dropna=False).agg({"v1": "sum"}),
    "q2": lambda: x.groupby(["id1", "id2"], as_index=False, sort=False, observed=True,
                            dropna=False).agg({"v1": "sum"}),
    "q3": lambda: x.groupby("id3", as_index=False, sort=False, observed=True,
                            dropna=False).agg({"v1": "sum", "v3": "mean"}),
    "q4": lambda: x.groupby("id4", as_index=False, sort=False, observed=True,
                            dropna=False).agg({"v1": "mean", "v2": "mean", "v3": "mean"}),
    "q5": lambda: x.groupby("id6", as_index=False, sort=False, observed=True,
                            dropna=False).agg({"v1": "sum", "v2": "sum", "v3": "sum"}),
}
for q, run in QUESTIONS.items():
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        ans = run()
        sums = [float(ans[c].sum()) for c in ans.columns if c.startswith("v")]
        t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    times[q] = best
    print(q, ans.shape, [f"{s:.9g}" for s in sums], list(ans.columns))
    print(ans.head(3).to_string())
print(json.dumps(times), file=sys.stderr)
