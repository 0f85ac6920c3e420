"""db-benchmark join q1-q5 written as plain pandas code, as the benchmark's
pandas solution writes them (read_csv of the four J1 tables, then merge).

    python bench/accel/join.py DIR N                      # plain pandas
    python -m zambezi.pandas bench/accel/join.py DIR N    # accelerated

DIR holds J1_<N>_*.csv (bench/accel/run.py writes them with
bench/dbbench/gen.py).  Prints each answer's shape and column sums on
stdout, and the seconds of the reads and of each question (best of
--repeat) and the peak resident memory (peak_mb) on stderr as JSON.
"""
import json
import os
import sys
import time

import pandas as pd

folder, n = sys.argv[1], int(sys.argv[2])
repeat = int(sys.argv[3]) if len(sys.argv) > 3 else 2
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "dbbench"))
from gen import join_names  # noqa: E402  (file names only)

names = join_names(n)
times = {}
t0 = time.perf_counter()
x, small, medium, big = (pd.read_csv(os.path.join(folder, names[t] + ".csv"))
                         for t in ("x", "small", "medium", "big"))
times["read_csv"] = time.perf_counter() - t0

QUESTIONS = {
    "j1": lambda: x.merge(small, on="id1"),
    "j2": lambda: x.merge(medium, on="id2"),
    "j3": lambda: x.merge(medium, how="left", on="id2"),
    "j4": lambda: x.merge(medium, on="id5"),
    "j5": lambda: x.merge(big, on="id3"),
}
for q, run in QUESTIONS.items():
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        ans = run()
        sums = [float(ans["v1"].sum()), float(ans["v2"].sum())]
        t = time.perf_counter() - t0
        best = t if best is None else min(best, t)
    times[q] = best
    print(q, ans.shape, [f"{s:.9g}" for s in sums], list(ans.columns))
    print(ans.head(3).to_string())
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from peak import peak_mb  # noqa: E402

times["peak_mb"] = peak_mb()
print(json.dumps(times), file=sys.stderr)
