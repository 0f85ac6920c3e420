"""Runs bench/accel/groupby.py (db-benchmark group-by q1-q5) and
bench/accel/small_ops.py (many tiny operations) under plain pandas and
under ``python -m zambezi.pandas`` on the same generated G1 CSV, checks
that both print the same answers, and reports the times and ratios.

    python bench/accel/run.py [--rows 1000000] [--dir /tmp/zb-accel-bench] [--repeat 2]

The CSV is the db-benchmark G1 table (bench/csv_read.py writes it), kept in
--dir for later runs.  Measurements, not tests.
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--dir", default="/tmp/zb-accel-bench")
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    path = os.path.join(a.dir, f"G1_{a.rows}.csv")
    if not os.path.exists(path):
        from csv_read import write_g1
        write_g1(path, a.rows)
    script = os.path.join(HERE, "groupby.py")
    out = {}
    for mode, cmd in (("pandas", [sys.executable, script]),
                      ("zambezi.pandas", [sys.executable, "-m", "zambezi.pandas", script])):
        p = subprocess.run(cmd + [path, str(a.repeat)], capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"{mode} failed:\n{p.stderr[-3000:]}")
        out[mode] = (p.stdout, json.loads(p.stderr.strip().splitlines()[-1]))
    small = os.path.join(HERE, "small_ops.py")
    for mode, cmd in (("pandas", [sys.executable, small]),
                      ("zambezi.pandas", [sys.executable, "-m", "zambezi.pandas", small])):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            sys.exit(f"{mode} small_ops failed:\n{p.stderr[-3000:]}")
        out[mode] = (out[mode][0] + p.stdout,
                     dict(out[mode][1], **json.loads(p.stderr.strip().splitlines()[-1])))
    same = out["pandas"][0] == out["zambezi.pandas"][0]
    print(f"G1 {a.rows:,} rows; answers identical: {same}")
    print(f"{'step':<9} {'pandas s':>9} {'accel s':>9} {'speed-up':>9}")
    tp, tz = out["pandas"][1], out["zambezi.pandas"][1]
    for k in tp:
        print(f"{k:<9} {tp[k]:>9.3f} {tz[k]:>9.3f} {tp[k] / tz[k]:>8.1f}x")
    if not same:
        import difflib
        print("\n".join(difflib.unified_diff(out["pandas"][0].splitlines(),
                                             out["zambezi.pandas"][0].splitlines(), lineterm="")))
        sys.exit(1)


if __name__ == "__main__":
    main()
