"""CPU time as well as wall time of bench/reshape_strings.py's cases.

    python bench/reshape_cpu.py [--rows 10000000] [--repeat 3]
        [--only zambezi,polars,duckdb] [--cases split_first,melt,apply]

On a shared machine the wall time of a run depends on what else runs;
the CPU time the process spends (time.process_time: every thread of the
process, the peers' thread pools included) depends much less on it.  The
same data and calls as bench/reshape_strings.py (its functions are used);
prints, per case and engine, the best of --repeat runs of each measure
with the ratio to zambezi.  Measurements, not tests.
"""
import argparse
import gc
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reshape_strings as rs  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="zambezi,polars,duckdb")
    ap.add_argument("--cases", default="split_first,melt,apply")
    args = ap.parse_args()
    engines = [e for e in rs.ENGINES if e in args.only.split(",")]
    cases = [c for c in rs.CASES if c in args.cases.split(",")]
    d = rs.make_inputs(args.rows, cases)
    setups = {"zambezi": rs.zambezi_cases, "pandas": rs.pandas_cases,
              "polars": rs.polars_cases, "duckdb": rs.duckdb_cases}
    res = {}
    for eng in engines:
        fns = setups[eng](d)
        for case in cases:
            if case not in fns:
                continue
            run = fns[case][0]
            wall = cpu = float("inf")
            for _ in range(args.repeat):
                out = None
                t0, c0 = time.perf_counter(), time.process_time()
                out = run()
                cpu = min(cpu, time.process_time() - c0)
                wall = min(wall, time.perf_counter() - t0)
            del out
            res[case, eng] = (wall, cpu)
        del fns
        gc.collect()
    print(f"# {' '.join(sys.argv)}  (nproc={os.cpu_count()}, rows={args.rows}, "
          f"best of {args.repeat})")
    print(f"{'case':12} {'engine':8} {'wall s':>8} {'vs zb':>6} {'cpu s':>8} {'vs zb':>6}")
    for case in cases:
        base = res.get((case, "zambezi"))
        for eng in engines:
            if (case, eng) not in res:
                continue
            w, c = res[case, eng]
            rw = f"{w / base[0]:.2f}x" if base else ""
            rc = f"{c / base[1]:.2f}x" if base else ""
            print(f"{case:12} {eng:8} {w:8.3f} {rw:>6} {c:8.3f} {rc:>6}")


if __name__ == "__main__":
    main()
