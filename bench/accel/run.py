"""Runs bench/accel/groupby.py (db-benchmark group-by q1-q10),
bench/accel/join.py (join q1-q5, as j1-j5; at 10^6 rows and more) and
bench/accel/small_ops.py (many tiny operations) under plain pandas, under
``python -m zambezi.pandas`` and, when an interpreter with FireDucks is
given or found, under ``python -m fireducks.pandas``, on the same generated
G1 CSV; checks that zambezi.pandas prints the same answers as pandas (and
says whether FireDucks does), and reports the times and ratios.

    python bench/accel/run.py [--rows 1000000] [--dir /tmp/zb-accel-bench] [--repeat 2]
                              [--rounds 3] [--fireducks-python PATH]

FireDucks (pip install fireducks) pins pandas 2.x and its own pyarrow, so it
lives in a virtual environment of its own: --fireducks-python (or the
FIREDUCKS_PYTHON environment variable) names that interpreter; without
either, this interpreter is used when it can import fireducks, else the
column is left out.  Its answers come from that environment's pandas.

Each configuration runs --rounds times, interleaved (pandas, zambezi.pandas,
FireDucks, pandas, ...), and each step's median is reported: on a shared
machine that is steadier than one run.  small_ops also reports CPU seconds
(small_ops_cpu), which other processes' load disturbs less than the wall
clock.

The CSVs are the db-benchmark G1 table (bench/csv_read.py writes it) and
the J1 tables (bench/dbbench/gen.py), kept in --dir for later runs.  Each
script also reports its process's peak resident memory (groupby_peak_mb,
join_peak_mb).  Measurements, not tests.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def _fireducks_python(arg):
    exe = arg or os.environ.get("FIREDUCKS_PYTHON")
    if exe:
        return exe
    ok = subprocess.run([sys.executable, "-c", "import fireducks.pandas"],
                        capture_output=True).returncode == 0
    return sys.executable if ok else None


def _run(mode, cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        sys.exit(f"{mode} failed ({' '.join(cmd)}):\n{p.stderr[-3000:]}")
    return p.stdout, json.loads(p.stderr.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--dir", default="/tmp/zb-accel-bench")
    ap.add_argument("--repeat", type=int, default=2, help="best of N inside each run")
    ap.add_argument("--rounds", type=int, default=1, help="runs of each configuration (median)")
    ap.add_argument("--fireducks-python", help="an interpreter that has fireducks installed")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    path = os.path.join(a.dir, f"G1_{a.rows}.csv")
    if not os.path.exists(path):
        from csv_read import write_g1
        write_g1(path, a.rows)
    modes = [("pandas", [sys.executable]),
             ("zambezi.pandas", [sys.executable, "-m", "zambezi.pandas"])]
    fd = _fireducks_python(a.fireducks_python)
    if fd:
        modes.append(("fireducks", [fd, "-m", "fireducks.pandas"]))
    joins = a.rows >= 1_000_000
    if joins:
        sys.path.insert(0, os.path.join(os.path.dirname(HERE), "dbbench"))
        import gen
        names = gen.join_names(a.rows)
        if not all(os.path.exists(os.path.join(a.dir, f + ".csv")) for f in names.values()):
            data = gen.join_data(a.rows)
            for t, f in names.items():
                gen.write_csv(gen.to_arrow(data[t], strings="string"),
                              os.path.join(a.dir, f + ".csv"))
            del data
    groupby = os.path.join(HERE, "groupby.py")
    join = os.path.join(HERE, "join.py")
    small = os.path.join(HERE, "small_ops.py")
    outs = {m: None for m, _ in modes}
    times = {m: [] for m, _ in modes}
    for _ in range(a.rounds):
        for mode, pre in modes:
            out1, t1 = _run(mode, pre + [groupby, path, str(a.repeat)])
            t1["groupby_peak_mb"] = t1.pop("peak_mb")
            out3, t3 = "", {}
            if joins:
                out3, t3 = _run(mode, pre + [join, a.dir, str(a.rows), str(a.repeat)])
                t3 = {("join_" + k if k in ("read_csv", "peak_mb") else k): v
                      for k, v in t3.items()}
            out2, t2 = _run(mode, pre + [small])
            outs[mode] = out1 + out3 + out2
            times[mode].append(dict(t1, **t3, **t2))
    med = {m: {k: statistics.median(t[k] for t in ts) for k in ts[0]} for m, ts in times.items()}
    for m in med:
        med[m]["read+q1..q10"] = sum(med[m][k] for k in ["read_csv"] +
                                     [f"q{i}" for i in range(1, 11)])
        if joins:
            med[m]["read+j1..j5"] = sum(med[m][k] for k in ["join_read_csv"] +
                                        [f"j{i}" for i in range(1, 6)])
    same = outs["pandas"] == outs["zambezi.pandas"]
    print(f"G1 {a.rows:,} rows, median of {a.rounds} run(s); "
          f"zambezi.pandas answers identical to pandas: {same}"
          + (f"; FireDucks answers identical: {outs['fireducks'] == outs['pandas']}" if fd else ""))
    names = [m for m, _ in modes]
    head = f"{'step':<14} {'pandas s':>9}" + "".join(
        f" {m.split('.')[0] + ' s':>11} {'speed-up':>8}" for m in names[1:])
    print(head)
    for k in med["pandas"]:
        row = f"{k:<14} {med['pandas'][k]:>9.3f}"
        for m in names[1:]:
            row += f" {med[m][k]:>11.3f} {med['pandas'][k] / med[m][k]:>7.2f}x"
        print(row)
    if not same:
        import difflib
        print("\n".join(difflib.unified_diff(outs["pandas"].splitlines(),
                                             outs["zambezi.pandas"].splitlines(), lineterm="")))
        sys.exit(1)


if __name__ == "__main__":
    main()
