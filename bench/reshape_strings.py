"""Reshaping and strings: zambezi vs pandas, polars and duckdb (issue #23).

    python bench/reshape_strings.py [--rows 10000000] [--repeat 2]
        [--only zambezi,pandas,polars,duckdb] [--cases pivot_table,melt,...]

Cases, each on --rows rows (data built once with numpy/pyarrow, then
handed to every engine; nothing of the hand-over is timed):

- pivot_table: sum of a float over 10^4 integer row keys x 12 string
  column keys (polars ``pivot``, duckdb ``PIVOT ... USING sum``);
- melt: an id and 4 float columns of rows/4 rows to rows long rows
  (polars ``unpivot``, duckdb ``UNPIVOT``);
- get_dummies: a string column of 16 distinct words to 16 bool columns
  (polars ``to_dummies``; duckdb has none: the nearest SQL is the distinct
  values, then one ``s = 'word'`` per word, both timed);
- contains, replace, extract: bench/strings.py's data and patterns
  (``str.contains`` of a regex, ``str.replace`` of a regex with a group
  reference, ``str.extract`` of two groups);
- split_first: ``s.str.split(" ").str[0]`` (polars
  ``str.split(" ").list.first()``, duckdb ``string_split(s, ' ')[1]``);
- apply: bench/numba_udf.py's scalar function on a float column (5% NaN):
  zambezi ``map(f, engine="numba")`` against pandas' ``map(f)`` (one
  Python call per value) and the same function vectorized in numpy
  (``np.where``), polars ``when/then`` and duckdb ``CASE WHEN`` (neither
  runs a Python function per row: their nearest is the expression).

pandas runs on its default str dtype (pyarrow-backed).  Each engine's
answer (of its last timed run) is checked against pandas' on a sample of
rows, or against zambezi's when pandas is left out (cheap; not timed): a
mismatch marks the row "DIFF".  Prints the command, nproc
and the best of --repeat runs per case and engine with peer / zambezi
ratios.  Measurements, not tests.
"""
import argparse
import gc
import math
import os
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from numba_udf import scalar  # noqa: E402  the Numba case's function
from strings import CONTAINS, EXTRACT, REPLACE, make_data  # noqa: E402

CASES = ["pivot_table", "melt", "get_dummies", "contains", "replace", "extract",
         "split_first", "apply"]
ENGINES = ["zambezi", "pandas", "polars", "duckdb"]
WORDS = ["kafue", "zambezi", "luangwa", "kabompo", "lunga", "chambeshi", "mulungushi", "lufupa",
         "kalungwishi", "luapula", "lukanga", "bangweulu", "mweru", "tanganyika", "kariba",
         "itezhi"]
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
N_ROW_KEYS = 10_000
SAMPLE = 1000


def timed(fn, repeat):
    """(best of repeat runs of fn in seconds, the last run's answer)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        out = None  # the previous answer's memory is free for this run
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


# --------------------------------------------------------------------------
# data (pyarrow / numpy, shared by every engine)
# --------------------------------------------------------------------------

def make_inputs(n, cases):
    rng = np.random.default_rng(7)
    d = {}
    if "pivot_table" in cases:
        d["pivot"] = pa.table({"a": rng.integers(0, N_ROW_KEYS, n),
                               "b": pc.take(pa.array(MONTHS, pa.large_string()),
                                            pa.array(rng.integers(0, 12, n))),
                               "v": rng.normal(size=n)})
    if "melt" in cases:
        m = max(n // 4, 1)
        d["melt"] = pa.table({"id": np.arange(m, dtype=np.int64),
                              **{f"x{i}": rng.normal(size=m) for i in range(4)}})
    if "get_dummies" in cases:
        d["words"] = pc.take(pa.array(WORDS, pa.large_string()),
                             pa.array(rng.integers(0, len(WORDS), n)))
    if {"contains", "replace", "extract", "split_first"} & set(cases):
        d["text"] = make_data(n)
    if "apply" in cases:
        v = rng.normal(size=n)
        v[rng.random(n) < 0.05] = np.nan
        d["floats"] = v
    return d


# --------------------------------------------------------------------------
# engines: case -> (function to time, function turning its answer into a
# pandas object laid out as pandas' answer) -- setup is not timed
# --------------------------------------------------------------------------

def numpy_cases(d):
    v = d.get("floats")
    return {"apply": (lambda: np.where(v > 0, v * v + 1.0, -v), lambda r: r)}


def pandas_cases(d):
    import pandas as pd

    out = {}
    if "pivot" in d:
        df = d["pivot"].to_pandas()
        df["b"] = df["b"].astype("str")
        out["pivot_table"] = (lambda: df.pivot_table(values="v", index="a", columns="b",
                                                     aggfunc="sum"), lambda r: r)
    if "melt" in d:
        df2 = d["melt"].to_pandas()
        out["melt"] = (lambda: df2.melt(id_vars="id"), lambda r: r)
    if "words" in d:
        w = pd.Series(d["words"].cast(pa.string()), dtype="str")
        out["get_dummies"] = (lambda: pd.get_dummies(w), lambda r: r)
    if "text" in d:
        s = pd.Series(d["text"].cast(pa.string()), dtype="str")
        out["contains"] = (lambda: s.str.contains(CONTAINS), lambda r: r)
        out["replace"] = (lambda: s.str.replace(REPLACE, r"<\1>", regex=True), lambda r: r)
        out["extract"] = (lambda: s.str.extract(EXTRACT), lambda r: r)
        out["split_first"] = (lambda: s.str.split(" ").str[0], lambda r: r)
    if "floats" in d:
        f = pd.Series(d["floats"])
        out["apply"] = (lambda: f.map(scalar), lambda r: r)
    return out


def zambezi_cases(d):
    import zambezi as zb

    out = {}
    pd_ = lambda r: r.to_pandas()  # noqa: E731
    if "pivot" in d:
        df = zb.DataFrame(d["pivot"])
        out["pivot_table"] = (lambda: df.pivot_table(values="v", index="a", columns="b",
                                                     aggfunc="sum"), pd_)
    if "melt" in d:
        df2 = zb.DataFrame(d["melt"])
        out["melt"] = (lambda: df2.melt(id_vars="id"), pd_)
    if "words" in d:
        w = zb.Series(d["words"])
        out["get_dummies"] = (lambda: zb.get_dummies(w), pd_)
    if "text" in d:
        s = zb.Series(d["text"])
        out["contains"] = (lambda: s.str.contains(CONTAINS), pd_)
        out["replace"] = (lambda: s.str.replace(REPLACE, r"<\1>", regex=True), pd_)
        out["extract"] = (lambda: s.str.extract(EXTRACT), pd_)
        out["split_first"] = (lambda: s.str.split(" ").str[0], pd_)
    if "floats" in d:
        f = zb.Series(d["floats"])
        f.map(scalar, engine="numba")  # Numba compiles here, untimed
        out["apply"] = (lambda: f.map(scalar, engine="numba"), pd_)
    return out


def polars_cases(d):
    import polars as pl

    out = {}
    if "pivot" in d:
        df = pl.from_arrow(d["pivot"])
        out["pivot_table"] = (
            lambda: df.pivot(on="b", index="a", values="v", aggregate_function="sum"),
            lambda r: r.to_pandas().set_index("a"))
    if "melt" in d:
        df2 = pl.from_arrow(d["melt"])
        out["melt"] = (lambda: df2.unpivot(index="id"), lambda r: r.to_pandas())
    if "words" in d:
        w = pl.Series("s", d["words"])
        out["get_dummies"] = (lambda: w.to_dummies(separator="_"),
                              lambda r: r.to_pandas().rename(columns=lambda c: c[2:]))
    if "text" in d:
        s = pl.Series("s", d["text"])
        out["contains"] = (lambda: s.str.contains(CONTAINS), lambda r: r.to_pandas())
        out["replace"] = (lambda: s.str.replace_all(REPLACE, "<${1}>"),
                          lambda r: r.to_pandas())
        out["extract"] = (lambda: s.str.extract_groups(EXTRACT).struct.unnest(),
                          lambda r: r.to_pandas())
        out["split_first"] = (lambda: s.str.split(" ").list.first(), lambda r: r.to_pandas())
    if "floats" in d:
        f = pl.Series("v", d["floats"])
        out["apply"] = (lambda: pl.select(pl.when(f > 0).then(f * f + 1.0).otherwise(-f))
                        .to_series(), lambda r: r.to_pandas())
    return out


def duckdb_cases(d):
    import duckdb

    con = duckdb.connect()
    out = {}

    def q(sql):
        return lambda: con.sql(sql).to_arrow_table()

    def pdf(r):
        return r.to_pandas()

    if "pivot" in d:
        con.register("p", d["pivot"])
        out["pivot_table"] = (q("PIVOT p ON b USING sum(v) GROUP BY a"),
                              lambda r: r.to_pandas().set_index("a"))
    if "melt" in d:
        con.register("m", d["melt"])
        out["melt"] = (q("UNPIVOT m ON COLUMNS(* EXCLUDE (id)) INTO NAME variable VALUE value"),
                       pdf)
    if "words" in d:
        con.register("w", pa.table({"s": d["words"]}))

        def dummies():
            vals = [r[0] for r in con.sql("SELECT DISTINCT s FROM w WHERE s IS NOT NULL "
                                          "ORDER BY s").fetchall()]
            cols = ", ".join("coalesce(s = '{0}', false) AS \"{0}\"".format(x.replace("'", "''"))
                             for x in vals)
            return con.sql(f"SELECT {cols} FROM w").to_arrow_table()
        out["get_dummies"] = (dummies, pdf)
    if "text" in d:
        con.register("t", pa.table({"s": d["text"]}))
        out["contains"] = (q(f"SELECT regexp_matches(s, '{CONTAINS}') FROM t"),
                           lambda r: r.column(0).to_pandas())
        out["replace"] = (q(f"SELECT regexp_replace(s, '{REPLACE}', '<\\1>', 'g') FROM t"),
                          lambda r: r.column(0).to_pandas())
        out["extract"] = (q(f"SELECT regexp_extract(s, '{EXTRACT}', 1), "
                            f"regexp_extract(s, '{EXTRACT}', 2) FROM t"), pdf)
        out["split_first"] = (q("SELECT string_split(s, ' ')[1] FROM t"),
                              lambda r: r.column(0).to_pandas())
    if "floats" in d:
        con.register("f", pa.table({"v": d["floats"]}))
        out["apply"] = (q("SELECT CASE WHEN v > 0 THEN v * v + 1 ELSE -v END FROM f"),
                        lambda r: r.column(0).to_pandas())
    return out


# --------------------------------------------------------------------------
# answers: a small canonical form per case, compared between engines
# --------------------------------------------------------------------------

def _cell(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    try:
        import pandas as pd
        if x is pd.NA:
            return None
    except ImportError:
        pass
    if isinstance(x, (float, np.floating)):
        return round(float(x), 6)
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    return x


def _rows(values, idx):
    return [_cell(values[i]) for i in idx]


def canonical(case, r, idx):
    """A small, engine-independent form of one answer (r as pandas)."""
    import pandas as pd

    if case == "pivot_table":  # the cells of a few row keys, columns by name; polars
        # sums an empty cell to 0 where the others leave it missing
        keys = sorted(r.index)[:: max(len(r.index) // 20, 1)]
        return len(r.index), {(int(k), str(c)): _cell(r.loc[k, c]) or 0.0
                              for k in keys for c in r.columns}
    if case == "melt":  # length and the sum of each variable's values
        sums = r.iloc[:, -1].groupby(r.iloc[:, -2].astype(str).to_numpy()).sum()
        return len(r), {k: round(float(v), 3) for k, v in sums.items()}
    if case == "get_dummies":  # which column is set in sampled rows
        cols = sorted(str(c) for c in r.columns)
        m = r.iloc[idx].to_numpy(dtype=bool)
        names = [str(c) for c in r.columns]
        return cols, [tuple(sorted(names[j] for j in np.flatnonzero(row))) for row in m]
    if isinstance(r, pd.DataFrame):
        return [tuple(_cell(x) for x in row) for row in r.iloc[idx].itertuples(index=False)]
    vals = r.to_numpy() if hasattr(r, "to_numpy") else np.asarray(r)
    out = _rows(vals, idx)
    if case == "contains":  # pandas' str dtype gives False for a missing row, peers null
        out = [bool(x) if x is not None else False for x in out]
    return out


# --------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--only", default=",".join(ENGINES))
    ap.add_argument("--cases", default=",".join(CASES))
    args = ap.parse_args()
    n, rep = args.rows, args.repeat
    engines = [e for e in ENGINES if e in args.only.split(",")]
    cases = [c for c in CASES if c in args.cases.split(",")]
    d = make_inputs(n, cases)
    rng = np.random.default_rng(3)
    idx = np.sort(rng.choice(n, size=min(SAMPLE, n), replace=False))
    times, answers = {}, {}
    setups = {"zambezi": zambezi_cases, "pandas": pandas_cases, "polars": polars_cases,
              "duckdb": duckdb_cases}
    runs = [(e, setups[e]) for e in engines]
    if "apply" in cases:  # the same function vectorized in numpy, with any --only
        runs.append(("numpy", numpy_cases))
    for eng, setup in runs:
        fns = setup(d)
        for case in cases:
            if case not in fns:
                continue
            run, as_pandas = fns[case]
            times[case, eng], last = timed(run, rep)
            answers[case, eng] = canonical(case, as_pandas(last), idx)
            del last
        del fns
        gc.collect()
    print(f"# {' '.join(sys.argv)}  (nproc={os.cpu_count()}, rows={n}, best of {rep})")
    print(f"{'case':12} {'engine':8} {'seconds':>9} {'vs zambezi':>10}  answer")
    diffs = 0
    ref_engine = "pandas" if "pandas" in engines else "zambezi"
    for case in cases:
        ref = answers.get((case, ref_engine))
        for eng in ENGINES + ["numpy"]:
            if (case, eng) not in times:
                continue
            t = times[case, eng]
            base = times.get((case, "zambezi"))
            ratio = f"{t / base:.2f}x" if base else ""
            ok = "" if ref is None else ("same" if answers[case, eng] == ref else "DIFF")
            diffs += ok == "DIFF"
            print(f"{case:12} {eng:8} {t:9.3f} {ratio:>10}  {ok}")
    print(f"# answer: the sampled answer against {ref_engine}'s"
          + (f"; {diffs} differ" if diffs else ""))


if __name__ == "__main__":
    main()
