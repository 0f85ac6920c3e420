"""db-benchmark group-by questions: zambezi against pandas, polars and duckdb
in one process, on the same generated G1 table (see gen.py).

    python bench/dbbench/groupby.py [--rows 1e7] [--k 100] [--na 0] [--sorted]
        [--engines zambezi,pandas,polars,duckdb] [--repeat 1] [--strings category]
        [--json out.json]

The ten questions of h2oai/db-benchmark (groupby-*.py/R "questions"):
  q1 sum v1 by id1                q6 median v3 sd v3 by id4 id5
  q2 sum v1 by id1:id2            q7 max v1 - min v2 by id3 (range_v1_v2)
  q3 sum v1 mean v3 by id3        q8 largest two v3 by id6
  q4 mean v1:v3 by id4            q9 regression v1 v2 by id2 id4 (r2 = corr^2)
  q5 sum v1:v3 by id6             q10 sum v3 count by id1:id6
Each question runs once (db-benchmark's first run) and then --repeat more
times (the best of those is "run 2").  zambezi and pandas share one
pandas-style implementation (both asked for the group keys as ordinary
columns with as_index=False); polars uses its
expression API and duckdb SQL, as db-benchmark's scripts do.  Every answer
is summarised (row count, sum of each numeric column, non-missing count of
the others) and compared with every other engine's: rows exactly, sums
within 0.5%.  Grouping keeps missing keys as a group and does not sort the
groups (db-benchmark's pandas settings sort=False, dropna=False).

Deviations from db-benchmark's scripts, the same for every engine: q8 drops
missing v3 first (polars' and duckdb's scripts do; pandas' does not, which
only matters with --na); q9 for pandas is computed from grouped sums of v1,
v2, v1*v1, v2*v2, v1*v2 over the rows where both are present
(db-benchmark's pandas script calls DataFrame.corr per group through apply,
which measures Python overhead rather than the engine), and zambezi uses its
own per-group correlation, groupby(...).corr("v1", "v2"), as polars uses
pl.corr and duckdb corr(); q10's count is the
number of rows (pandas 'size', polars len(), SQL count(*)).
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
import gen  # noqa: E402

QUESTIONS = ["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "q10"]
TITLES = {
    "q1": "sum v1 by id1", "q2": "sum v1 by id1:id2", "q3": "sum v1 mean v3 by id3",
    "q4": "mean v1:v3 by id4", "q5": "sum v1:v3 by id6", "q6": "median v3 sd v3 by id4 id5",
    "q7": "max v1 - min v2 by id3", "q8": "largest two v3 by id6",
    "q9": "regression v1 v2 by id2 id4", "q10": "sum v3 count by id1:id6",
}
IDS = ["id1", "id2", "id3", "id4", "id5", "id6"]


# ---------------------------------------------------------------------------
# pandas-style (pandas and zambezi)
# ---------------------------------------------------------------------------

def pandas_style(kw, frame_cls):
    """The questions written against the pandas API.  kw: the groupby
    keyword arguments (pandas: as_index=False, sort=False, observed=True,
    dropna=False; zambezi: as_index=False, sort=False, dropna=False).  frame_cls builds a
    frame from a dict of Series (q9)."""

    def gb(x, keys):
        return x.groupby(keys, **kw)

    def q7(x):
        a = gb(x, "id3").agg({"v1": "max", "v2": "min"})
        a["range_v1_v2"] = a["v1"] - a["v2"]
        return a[["id3", "range_v1_v2"]]

    def q9(x):
        v1 = x["v1"].astype("float64")
        v2 = x["v2"].astype("float64")
        a = v1 + v2 * 0.0  # missing where either is missing (pairwise-complete rows)
        b = v2 + v1 * 0.0
        t = frame_cls({"id2": x["id2"], "id4": x["id4"], "a": a, "b": b,
                       "aa": a * a, "bb": b * b, "ab": a * b})
        s = gb(t, ["id2", "id4"]).agg(  # lists everywhere: pandas' and zambezi's
            {"a": ["sum", "count"], "b": ["sum"], "aa": ["sum"],  # naming then agree
             "bb": ["sum"], "ab": ["sum"]})
        return _r2(s, frame_cls)

    return {
        "q1": lambda x: gb(x, "id1").agg({"v1": "sum"}),
        "q2": lambda x: gb(x, ["id1", "id2"]).agg({"v1": "sum"}),
        "q3": lambda x: gb(x, "id3").agg({"v1": "sum", "v3": "mean"}),
        "q4": lambda x: gb(x, "id4").agg({"v1": "mean", "v2": "mean", "v3": "mean"}),
        "q5": lambda x: gb(x, "id6").agg({"v1": "sum", "v2": "sum", "v3": "sum"}),
        "q6": lambda x: gb(x, ["id4", "id5"]).agg(median_v3=("v3", "median"),
                                                   sd_v3=("v3", "std")),
        "q7": q7,
        "q8": lambda x: gb(x[["id6", "v3"]].dropna(subset=["v3"])
                           .sort_values("v3", ascending=False), "id6").head(2),
        "q9": q9,
        "q10": lambda x: gb(x, IDS).agg(v3=("v3", "sum"), count=("v1", "size")),
    }


def _col(s, name):
    """Column `name` of an aggregation result whose columns may be a pandas
    MultiIndex (("a", "sum")) or flat names ("a_sum")."""
    cols = list(s.columns)
    if name in cols:
        return s[name]
    if (name, "") in cols:
        return s[(name, "")]
    if "_" in name:
        base, op = name.rsplit("_", 1)
        if (base, op) in cols:
            return s[(base, op)]
    raise KeyError(f"aggregation result has no column {name!r}: {cols}")


def _r2(s, frame_cls):
    n = _col(s, "a_count").astype("float64")
    sa, sb = _col(s, "a_sum"), _col(s, "b_sum")
    cov = n * _col(s, "ab_sum") - sa * sb
    va = n * _col(s, "aa_sum") - sa * sa
    vb = n * _col(s, "bb_sum") - sb * sb
    r2 = (cov * cov) / (va * vb)
    return frame_cls({"id2": _col(s, "id2"), "id4": _col(s, "id4"), "r2": r2})


def pandas_impl():
    import pandas as pd

    def frame(d):
        return pd.DataFrame({k: (v.reset_index(drop=True) if hasattr(v, "reset_index") else v)
                             for k, v in d.items()})

    kw = dict(as_index=False, sort=False, observed=True, dropna=False)
    impl = pandas_style(kw, frame)
    return impl


def zambezi_impl():
    try:
        import zambezi as zb
    except ImportError as e:
        return {"_missing": f"zambezi not importable: {e}"}
    if not hasattr(zb.DataFrame, "groupby"):
        return {"_missing": "zambezi.DataFrame has no groupby yet "
                            f"(zambezi from {os.path.dirname(zb.__file__)})"}
    impl = pandas_style(dict(as_index=False, sort=False, dropna=False), zb.DataFrame)

    def q9(x):
        c = x.groupby(["id2", "id4"], as_index=False, sort=False,
                      dropna=False).corr("v1", "v2", name="r2")
        c["r2"] = c["r2"] * c["r2"]
        return c

    impl["q9"] = q9
    return impl


# ---------------------------------------------------------------------------
# polars
# ---------------------------------------------------------------------------

def polars_impl():
    import polars as pl

    c = pl.col
    return {
        "q1": lambda x: x.group_by("id1").agg(c("v1").sum()),
        "q2": lambda x: x.group_by(["id1", "id2"]).agg(c("v1").sum()),
        "q3": lambda x: x.group_by("id3").agg(c("v1").sum(), c("v3").mean()),
        "q4": lambda x: x.group_by("id4").agg(c("v1").mean(), c("v2").mean(), c("v3").mean()),
        "q5": lambda x: x.group_by("id6").agg(c("v1").sum(), c("v2").sum(), c("v3").sum()),
        "q6": lambda x: x.group_by(["id4", "id5"]).agg(c("v3").median().alias("median_v3"),
                                                       c("v3").std().alias("sd_v3")),
        "q7": lambda x: x.group_by("id3").agg((c("v1").max() - c("v2").min())
                                              .alias("range_v1_v2")),
        "q8": lambda x: x.drop_nulls("v3").sort("v3", descending=True).group_by("id6")
        .agg(c("v3").head(2).alias("largest2_v3")).explode("largest2_v3"),
        "q9": lambda x: x.group_by(["id2", "id4"]).agg((pl.corr("v1", "v2") ** 2).alias("r2")),
        "q10": lambda x: x.group_by(IDS).agg(c("v3").sum(), pl.len().alias("count")),
    }


# ---------------------------------------------------------------------------
# duckdb
# ---------------------------------------------------------------------------

SQL = {
    "q1": "SELECT id1, sum(v1) AS v1 FROM x GROUP BY id1",
    "q2": "SELECT id1, id2, sum(v1) AS v1 FROM x GROUP BY id1, id2",
    "q3": "SELECT id3, sum(v1) AS v1, avg(v3) AS v3 FROM x GROUP BY id3",
    "q4": "SELECT id4, avg(v1) AS v1, avg(v2) AS v2, avg(v3) AS v3 FROM x GROUP BY id4",
    "q5": "SELECT id6, sum(v1) AS v1, sum(v2) AS v2, sum(v3) AS v3 FROM x GROUP BY id6",
    "q6": "SELECT id4, id5, quantile_cont(v3, 0.5) AS median_v3, stddev(v3) AS sd_v3 "
          "FROM x GROUP BY id4, id5",
    "q7": "SELECT id3, max(v1) - min(v2) AS range_v1_v2 FROM x GROUP BY id3",
    "q8": "SELECT id6, v3 AS largest2_v3 FROM (SELECT id6, v3, row_number() OVER "
          "(PARTITION BY id6 ORDER BY v3 DESC) AS order_v3 FROM x WHERE v3 IS NOT NULL) "
          "sub_query WHERE order_v3 <= 2",
    "q9": "SELECT id2, id4, pow(corr(v1, v2), 2) AS r2 FROM x GROUP BY id2, id4",
    "q10": "SELECT id1, id2, id3, id4, id5, id6, sum(v3) AS v3, count(*) AS count "
           "FROM x GROUP BY id1, id2, id3, id4, id5, id6",
}


def duckdb_impl(sql=SQL):
    """Each question materialises its answer as table ans, as db-benchmark's
    duckdb script does (CREATE TABLE ans AS ...)."""
    def q(text):
        def run(con):
            con.execute(f"CREATE OR REPLACE TABLE ans AS {text}")
            return con.table("ans")
        return run
    return {name: q(text) for name, text in sql.items()}


# ---------------------------------------------------------------------------

def loaders_for(table, strings):
    def duck():
        import duckdb
        con = duckdb.connect()
        common.duckdb_table(con, "x", table, strings)
        return con
    return {"zambezi": lambda: common.to_zambezi(table),
            "pandas": lambda: common.to_pandas(table),
            "polars": lambda: common.to_polars(table),
            "duckdb": duck}


def impls_for(engines):
    makers = {"zambezi": zambezi_impl, "pandas": pandas_impl, "polars": polars_impl,
              "duckdb": duckdb_impl}
    out = {}
    for e in engines:
        try:
            out[e] = makers[e]()
        except ImportError as ex:
            out[e] = {"_missing": f"not installed: {ex}"}
    return out


def run(rows, k, na=0, sort=False, engines=common.ENGINES, repeat=1, strings="category",
        seed=gen.SEED, log=print):
    t0 = time.perf_counter()
    data = gen.groupby_data(rows, k, na, sort, seed)
    table = gen.to_arrow(data, strings)
    del data
    name = gen.groupby_name(rows, k, na, sort)
    log(f"{name}: generated {table.num_rows:,} rows in {time.perf_counter() - t0:.1f} s "
        f"(strings as {strings})")
    results = common.run_engines(QUESTIONS, list(engines), loaders_for(table, strings),
                                 impls_for(engines), repeat, log)
    return name, results


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--k", type=float, default=100)
    ap.add_argument("--na", type=int, default=0, help="percent of missing values")
    ap.add_argument("--sorted", action="store_true", help="data sorted by id1..id6")
    ap.add_argument("--engines", default=",".join(common.ENGINES))
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs after the first; run 2 is their best (default 1)")
    ap.add_argument("--strings", choices=["category", "string"], default="category",
                    help="id1..id3 as categoricals (db-benchmark) or plain strings")
    ap.add_argument("--seed", type=int, default=gen.SEED)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    bad = [e for e in engines if e not in common.ENGINES]
    if bad:
        ap.error(f"unknown engines {bad}; choose from {common.ENGINES}")
    print(f"versions: {common.engine_versions(engines)}; cpus: {common.cpu_info()}")
    name, results = run(int(args.rows), int(args.k), args.na, args.sorted, engines,
                        args.repeat, args.strings, args.seed)
    tot = common.report(f"groupby {name}", results, QUESTIONS, engines)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"task": "groupby", "data": name, "engines": engines,
                       "versions": common.engine_versions(engines),
                       "memory_method": common.MEMORY_METHOD, "results": results,
                       "totals": tot}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
