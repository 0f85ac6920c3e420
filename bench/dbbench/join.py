"""db-benchmark join questions: zambezi against pandas, polars and duckdb in
one process, on the same generated tables x, small, medium and big (gen.py).

    python bench/dbbench/join.py [--rows 1e7] [--engines zambezi,pandas,polars,duckdb]
        [--repeat 1] [--strings category] [--json out.json]

The five questions of h2oai/db-benchmark:
  q1 small inner on int      x.merge(small, on="id1")
  q2 medium inner on int     x.merge(medium, on="id2")
  q3 medium outer on int     x.merge(medium, how="left", on="id2")
  q4 medium inner on factor  x.merge(medium, on="id5")   (id5: strings)
  q5 big inner on int        x.merge(big, on="id3")
x has --rows rows; small, medium and big have rows/1e6, rows/1e3 and rows
rows, each of their keys once, 90% of the keys shared with x.  zambezi and
pandas run the same pandas-style code (DataFrame.merge); polars uses
DataFrame.join, duckdb SQL materialising table ans.  Answers are compared
across engines as in groupby.py: rows exactly, per-column sums (numeric) or
non-missing counts (strings) within 0.5%, columns matched by position since
each engine suffixes the overlapping right-hand names its own way (pandas
_x/_y, polars _right, the SQL here _r).  The data have no missing values
(db-benchmark runs its join questions on NA_0 data only).  duckdb always
gets VARCHAR string columns here: ENUM types of the id6 dictionaries (1.1 x
rows values) take long to build and a join of two different ENUM types
compares them as VARCHAR anyway.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
import gen  # noqa: E402

QUESTIONS = ["q1", "q2", "q3", "q4", "q5"]
TITLES = {"q1": "small inner on int", "q2": "medium inner on int",
          "q3": "medium outer on int", "q4": "medium inner on factor",
          "q5": "big inner on int"}
# question -> (right table, key, how)
SPEC = {"q1": ("small", "id1", "inner"), "q2": ("medium", "id2", "inner"),
        "q3": ("medium", "id2", "left"), "q4": ("medium", "id5", "inner"),
        "q5": ("big", "id3", "inner")}


def pandas_style():
    """zambezi and pandas: d is {"x": frame, "small": ..., ...}."""
    def q(right, key, how):
        return lambda d: d["x"].merge(d[right], how=how, on=key)
    return {name: q(*s) for name, s in SPEC.items()}


def pandas_impl():
    import pandas  # noqa: F401  (ImportError -> not installed)
    return pandas_style()


def zambezi_impl():
    try:
        import zambezi as zb
    except ImportError as e:
        return {"_missing": f"zambezi not importable: {e}"}
    if not hasattr(zb.DataFrame, "merge"):
        return {"_missing": "zambezi.DataFrame has no merge yet "
                            f"(zambezi from {os.path.dirname(zb.__file__)})"}
    return pandas_style()


def polars_impl():
    import polars  # noqa: F401

    def q(right, key, how):
        return lambda d: d["x"].join(d[right], on=key, how=how)
    return {name: q(*s) for name, s in SPEC.items()}


def sql_for(right, key, how, columns):
    """SELECT x's columns, then right's non-key columns (suffix _r where the
    name is also in x), the column layout of pandas' merge."""
    xcols, rcols = columns["x"], columns[right]
    sel = [f"x.{c}" for c in xcols]
    sel += [f"{right}.{c} AS {c}_r" if c in xcols else f"{right}.{c}"
            for c in rcols if c != key]
    join = "JOIN" if how == "inner" else "LEFT JOIN"
    return (f"SELECT {', '.join(sel)} FROM x {join} {right} "
            f"ON x.{key} = {right}.{key}")


def duckdb_impl(columns):
    def q(text):
        def run(con):
            con.execute(f"CREATE OR REPLACE TABLE ans AS {text}")
            return con.table("ans")
        return run
    return {name: q(sql_for(*s, columns)) for name, s in SPEC.items()}


def loaders_for(tables, strings):
    def each(convert):
        return lambda: {name: convert(t) for name, t in tables.items()}

    def duck():
        import duckdb
        con = duckdb.connect()
        for name, t in tables.items():  # VARCHAR keys: see the module doc
            common.duckdb_table(con, name, t, "string")
        return con
    return {"zambezi": each(common.to_zambezi), "pandas": each(common.to_pandas),
            "polars": each(common.to_polars), "duckdb": duck}


def impls_for(engines, columns):
    makers = {"zambezi": zambezi_impl, "pandas": pandas_impl, "polars": polars_impl,
              "duckdb": lambda: duckdb_impl(columns)}
    out = {}
    for e in engines:
        try:
            out[e] = makers[e]()
        except ImportError as ex:
            out[e] = {"_missing": f"not installed: {ex}"}
    return out


def run(rows, engines=common.ENGINES, repeat=1, strings="category", seed=gen.SEED, log=print):
    t0 = time.perf_counter()
    data = gen.join_data(rows, seed)
    tables = {name: gen.to_arrow(d, strings) for name, d in data.items()}
    del data
    name = gen.join_names(rows)["x"]
    log(f"{name}: generated x {tables['x'].num_rows:,}, small {tables['small'].num_rows:,}, "
        f"medium {tables['medium'].num_rows:,}, big {tables['big'].num_rows:,} rows in "
        f"{time.perf_counter() - t0:.1f} s (strings as {strings})")
    columns = {n: t.column_names for n, t in tables.items()}
    results = common.run_engines(QUESTIONS, list(engines), loaders_for(tables, strings),
                                 impls_for(engines, columns), repeat, log)
    return name, results


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--engines", default=",".join(common.ENGINES))
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs after the first; run 2 is their best (default 1)")
    ap.add_argument("--strings", choices=["category", "string"], default="category",
                    help="id4..id6 as categoricals (db-benchmark) or plain strings")
    ap.add_argument("--seed", type=int, default=gen.SEED)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    bad = [e for e in engines if e not in common.ENGINES]
    if bad:
        ap.error(f"unknown engines {bad}; choose from {common.ENGINES}")
    print(f"versions: {common.engine_versions(engines)}; cpus: {common.cpu_info()}")
    name, results = run(int(args.rows), engines, args.repeat, args.strings, args.seed)
    tot = common.report(f"join {name}", results, QUESTIONS, engines)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"task": "join", "data": name, "engines": engines,
                       "versions": common.engine_versions(engines),
                       "memory_method": common.MEMORY_METHOD, "results": results,
                       "totals": tot}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
