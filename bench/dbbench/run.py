"""Run the db-benchmark group-by and join questions at one or more sizes and
print one summary table: per data set and engine the total of the first-run
times (and of the second runs), how many answers agreed with the other
engines, and every engine's total over zambezi's (above 1: zambezi faster).

    python bench/dbbench/run.py [--rows 1e6,1e7] [--k 100] [--na 0] [--sorted]
        [--tasks groupby,join] [--engines zambezi,pandas,polars,duckdb]
        [--repeat 1] [--strings category] [--json dbbench.json] [--quiet]

Totals are over the questions that every engine which ran answered, so an
engine that failed a question does not make the others look slower.  The
per-question tables (times, memory, checks) are printed as each data set
finishes; the JSON file holds everything.
"""
import argparse
import json
import os
import platform
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
import groupby  # noqa: E402
import join  # noqa: E402


def summary_rows(task, name, results, questions, engines):
    tot = common.totals(results, questions, engines)
    rows = []
    ztot = tot["run1"].get("zambezi")
    for e in engines:
        rs = [results[e][q] for q in questions if q in results.get(e, {})]
        answered = sum("run1" in r for r in rs)
        ok = sum(r.get("check") == "ok" for r in rs)
        bad = [q for q in questions if str(results.get(e, {}).get(q, {}).get("check", ""))
               .startswith("MISMATCH")]
        errors = [q for q in questions if "error" in results.get(e, {}).get(q, {})
                  and not results[e][q].get("missing")]
        missing = [q for q in questions if results.get(e, {}).get(q, {}).get("missing")]
        rows.append({
            "task": task, "data": name, "engine": e,
            "run1": tot["run1"].get(e), "run2": tot["run2"].get(e),
            "answered": answered, "checked_ok": ok, "mismatch": bad, "errors": errors,
            "not_available": bool(missing) and answered == 0,
            "vs_zambezi": (tot["run1"][e] / ztot) if ztot and e in tot["run1"] else None,
            "common_questions": tot["common"],
        })
    return rows


def print_summary(rows, nq):
    print("\n== summary (seconds; vs zambezi = engine total / zambezi total, above 1: "
          "zambezi faster)")
    head = (f"{'task':<8}{'data':<18}{'engine':<9}{'run1 total':>11}{'run2 total':>11}"
            f"{'answered':>10}{'ok':>5}{'vs zambezi':>12}  notes")
    print(head)
    print("-" * len(head))
    for r in rows:
        if r["not_available"]:
            print(f"{r['task']:<8}{r['data']:<18}{r['engine']:<9}{'not available':>22}")
            continue
        notes = []
        if r["mismatch"]:
            notes.append("MISMATCH " + ",".join(r["mismatch"]))
        if r["errors"]:
            notes.append("errors " + ",".join(r["errors"]))
        if len(r["common_questions"]) < nq[r["task"]]:
            notes.append(f"totals over {','.join(r['common_questions'])}")
        v = f"{r['vs_zambezi']:>11.2f}x" if r["vs_zambezi"] else f"{'n/a':>12}"
        print(f"{r['task']:<8}{r['data']:<18}{r['engine']:<9}"
              f"{common.fmt_s(r['run1']):>11}{common.fmt_s(r['run2']):>11}"
              f"{r['answered']:>7}/{nq[r['task']]:<2}{r['checked_ok']:>5}{v}  {'; '.join(notes)}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", default="1e6", help="comma-separated sizes, e.g. 1e6,1e7")
    ap.add_argument("--k", type=float, default=100, help="group-by: number of groups K")
    ap.add_argument("--na", type=int, default=0, help="group-by: percent missing")
    ap.add_argument("--sorted", action="store_true", help="group-by: sorted data")
    ap.add_argument("--tasks", default="groupby,join")
    ap.add_argument("--engines", default=",".join(common.ENGINES))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--strings", choices=["category", "string"], default="category")
    ap.add_argument("--json", default="dbbench.json")
    ap.add_argument("--quiet", action="store_true", help="no per-question progress lines")
    args = ap.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    log = (lambda s: None) if args.quiet else print
    versions = common.engine_versions(engines)
    print(f"versions: {versions}; cpus: {common.cpu_info()}; {platform.platform()}")
    runs, rows = [], []
    for size in args.rows.split(","):
        n = int(float(size))
        if "groupby" in tasks:
            name, res = groupby.run(n, int(args.k), args.na, args.sorted, engines,
                                    args.repeat, args.strings, log=log)
            common.report(f"groupby {name}", res, groupby.QUESTIONS, engines)
            runs.append({"task": "groupby", "data": name, "results": res})
            rows += summary_rows("groupby", name, res, groupby.QUESTIONS, engines)
        if "join" in tasks:
            name, res = join.run(n, engines, args.repeat, args.strings, log=log)
            common.report(f"join {name}", res, join.QUESTIONS, engines)
            runs.append({"task": "join", "data": name, "results": res})
            rows += summary_rows("join", name, res, join.QUESTIONS, engines)
    print_summary(rows, {"groupby": len(groupby.QUESTIONS), "join": len(join.QUESTIONS)})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"versions": versions, "cpu": common.cpu_info(),
                       "platform": platform.platform(), "args": vars(args),
                       "memory_method": common.MEMORY_METHOD, "summary": rows,
                       "runs": runs}, f, indent=1, default=str)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
