"""A/B of two zambezi builds on the same machine, in alternating rounds.

    python bench/ab.py STAGE_A STAGE_B [--rounds 3] [--rows 10000000] [--dbbench]

STAGE_A / STAGE_B are staged builds (a folder holding the ``zambezi``
package with its compiled ``_core``, as scripts/dev-test.sh makes in
build-dev-NAME/stage).  Each round runs every operation below in a fresh
process per build, A then B, so a slow spell of the machine falls on both;
the table gives each build's best time and B/A.  Operations: scans and
filters, sorts, a group-by, a merge, value_counts, concat, and the
per-call cost of engine calls on 10 rows (what every Python-level call
pays).  With --dbbench the db-benchmark group-by and join totals
(bench/dbbench, zambezi only, 10^7 rows, categorical ids) are compared
too.  Used for changes that touch every operation, such as the
cancellation checks (a relaxed load per morsel, a scope per engine call).
Timings are measurements, not tests.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

OPS = r'''
import json, sys, time
import numpy as np
import zambezi as zb
from zambezi import _core

n = int(sys.argv[1])
rng = np.random.default_rng(1)
df = zb.DataFrame({"i": rng.integers(-10**9, 10**9, n), "f": rng.random(n),
                   "k": rng.integers(0, 1000, n)})
df["s"] = (df["k"] % 997).astype("string")
right = zb.DataFrame({"k": np.arange(1000), "w": rng.random(1000)})
tiny = zb.Series(np.arange(10.0))
col = tiny._col


def best(f, r=5):
    b = float("inf")
    for _ in range(r):
        t = time.perf_counter()
        f()
        b = min(b, time.perf_counter() - t)
    return b


def calls(f, k=20000):
    return lambda: [f() for _ in range(k)]


ops = {
    "sum int64": lambda: df["i"].sum(),
    "filter i > 0": lambda: df[df["i"] > 0],
    "sort int64": lambda: df["i"].sort_values(),
    "sort string": lambda: df["s"].sort_values(),
    "groupby sum (1000 groups)": lambda: df.groupby("k")["f"].sum(),
    "merge with 1000 rows": lambda: df.merge(right, on="k"),
    "value_counts": lambda: df["k"].value_counts(),
    "concat 2 frames": lambda: zb.concat([df, df]),
    "engine call on 10 rows x20000": calls(lambda: _core.binary_scalar("add", col, 1, False)),
    "s + 1 on 10 rows x20000": calls(lambda: tiny + 1),
}
print(json.dumps({k: best(f) for k, f in ops.items()}))
'''


def run_ops(stage, rows):
    env = dict(os.environ, PYTHONPATH=stage)
    out = subprocess.run([sys.executable, "-c", OPS, str(rows)], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_dbbench(stage, task):
    env = dict(os.environ, PYTHONPATH=stage)
    path = f"/tmp/zb-ab-{task}-{os.getpid()}.json"
    subprocess.run([sys.executable, os.path.join(HERE, "dbbench", f"{task}.py"), "--rows", "1e7",
                    "--engines", "zambezi", "--json", path], env=env, check=True,
                   capture_output=True, text=True)
    with open(path) as f:
        res = json.load(f)
    os.unlink(path)
    return res


def total(res):
    """zambezi's total over the questions: the second run's (warm) when
    there is one, else the first's."""
    t = res["totals"]
    warm = t.get("run2", {}).get("zambezi")
    return float(warm if warm is not None else t["run1"]["zambezi"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--dbbench", action="store_true")
    args = ap.parse_args()
    times = {}
    for _ in range(args.rounds):
        for label, stage in (("A", args.a), ("B", args.b)):
            for op, t in run_ops(stage, args.rows).items():
                times.setdefault(op, {}).setdefault(label, []).append(t)
            if args.dbbench:
                for task in ("groupby", "join"):
                    t = total(run_dbbench(stage, task))
                    times.setdefault(f"dbbench {task} total", {}).setdefault(label, []).append(t)
    print(f"A = {args.a}\nB = {args.b}\n{args.rounds} rounds, best time (s)")
    print(f"| operation | A | B | B/A |\n|---|---:|---:|---:|")
    for op, d in times.items():
        a, b = min(d["A"]), min(d["B"])
        print(f"| {op} | {a:.4g} | {b:.4g} | {b / a:.2f} |")


if __name__ == "__main__":
    main()
