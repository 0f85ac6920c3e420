"""Regular expressions on strings: zambezi vs pandas, polars and duckdb.

    python bench/strings.py [--rows 10000000] [--repeat 3] [--only zambezi,pandas,polars,duckdb]

Data: --rows strings like "kafue37@mail.com 412-07 zambezi" (a word, a
number, a domain, a code of digits, a word; 20-40 bytes), 1% missing,
built with pyarrow.  Cases:

- contains: ``s.str.contains(r"\\d{3}-\\d{2}")`` (polars ``str.contains``,
  duckdb ``regexp_matches``);
- contains (no match): ``r"\\d{3}-\\d{2}x"``, which scans every row;
- extract: two groups ``r"(\\w+)@(\\w+)\\.com"`` into two columns (polars
  ``str.extract_groups``, duckdb two ``regexp_extract``);
- replace: ``r"(\\d+)"`` by ``<\\1>`` in every match (polars
  ``replace_all`` with ``<${1}>``, duckdb ``regexp_replace(..., 'g')``).

pandas runs on its default str dtype (pyarrow-backed: RE2 through Arrow's
compute kernels, single-threaded); polars and duckdb use the Rust regex
crate and RE2 on all cores; zambezi uses PCRE2 with its JIT on all cores.
Prints the best of --repeat runs per case and engine, with the ratio to
zambezi, the command and the machine (nproc).  Measurements, not tests.
"""
import argparse
import os
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

CONTAINS = r"\d{3}-\d{2}"
NO_MATCH = r"\d{3}-\d{2}x"
EXTRACT = r"(\w+)@(\w+)\.com"
REPLACE = r"(\d+)"


def best(fn, repeat):
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def make_data(n):
    rng = np.random.default_rng(1)
    words = pa.array(["kafue", "zambezi", "luangwa", "kabompo", "lunga", "chambeshi", "mulungushi"])
    domains = pa.array(["mail", "post", "example", "lusaka"])

    def num(hi):
        return pc.cast(pa.array(rng.integers(0, hi, n)), pa.string())

    def pick(values):
        return pc.take(values, pa.array(rng.integers(0, len(values), n)))

    def const(text):
        return pa.repeat(pa.scalar(text), n) if hasattr(pa, "repeat") else pa.array([text] * n)

    parts = [pick(words), num(100), const("@"), pick(domains), const(".com "),
             pc.utf8_lpad(num(1000), 3, "0"), const("-"), pc.utf8_lpad(num(100), 2, "0"),
             const(" "), pick(words)]
    s = pc.binary_join_element_wise(*parts, "")
    mask = pa.array(rng.random(n) < 0.01)
    s = pc.if_else(mask, pa.scalar(None, pa.string()), s)
    return pc.cast(s, pa.large_string())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="zambezi,pandas,polars,duckdb")
    args = ap.parse_args()
    n, rep = args.rows, args.repeat
    engines = set(args.only.split(","))
    arr = make_data(n)
    rows = []  # (case, engine, seconds)

    if "zambezi" in engines:
        import zambezi as zb

        s = zb.Series(arr)
        rows.append(("contains", "zambezi", best(lambda: s.str.contains(CONTAINS), rep)))
        rows.append(("contains (no match)", "zambezi",
                     best(lambda: s.str.contains(NO_MATCH), rep)))
        rows.append(("extract 2 groups", "zambezi", best(lambda: s.str.extract(EXTRACT), rep)))
        rows.append(("replace with group", "zambezi",
                     best(lambda: s.str.replace(REPLACE, r"<\1>", regex=True), rep)))
    if "pandas" in engines:
        import pandas as pd

        ps = pd.Series(arr.cast(pa.string()), dtype="str")
        rows.append(("contains", "pandas", best(lambda: ps.str.contains(CONTAINS), rep)))
        rows.append(("contains (no match)", "pandas",
                     best(lambda: ps.str.contains(NO_MATCH), rep)))
        rows.append(("extract 2 groups", "pandas", best(lambda: ps.str.extract(EXTRACT), rep)))
        rows.append(("replace with group", "pandas",
                     best(lambda: ps.str.replace(REPLACE, r"<\1>", regex=True), rep)))
    if "polars" in engines:
        import polars as pl

        pls = pl.Series("s", arr)
        rows.append(("contains", "polars", best(lambda: pls.str.contains(CONTAINS), rep)))
        rows.append(("contains (no match)", "polars",
                     best(lambda: pls.str.contains(NO_MATCH), rep)))
        rows.append(("extract 2 groups", "polars",
                     best(lambda: pls.str.extract_groups(EXTRACT).struct.unnest(), rep)))
        rows.append(("replace with group", "polars",
                     best(lambda: pls.str.replace_all(REPLACE, "<${1}>"), rep)))
    if "duckdb" in engines:
        import duckdb

        con = duckdb.connect()
        con.register("t", pa.table({"s": arr}))

        def q(sql):
            return lambda: con.sql(sql).to_arrow_table()

        rows.append(("contains", "duckdb",
                     best(q(f"SELECT regexp_matches(s, '{CONTAINS}') FROM t"), rep)))
        rows.append(("contains (no match)", "duckdb",
                     best(q(f"SELECT regexp_matches(s, '{NO_MATCH}') FROM t"), rep)))
        rows.append(("extract 2 groups", "duckdb",
                     best(q(f"SELECT regexp_extract(s, '{EXTRACT}', 1), "
                            f"regexp_extract(s, '{EXTRACT}', 2) FROM t"), rep)))
        rows.append(("replace with group", "duckdb",
                     best(q(f"SELECT regexp_replace(s, '{REPLACE}', '<\\1>', 'g') FROM t"), rep)))

    base = {case: t for case, eng, t in rows if eng == "zambezi"}
    print(f"# {' '.join(sys.argv)}  (nproc={os.cpu_count()}, rows={n})")
    print(f"{'case':22} {'engine':8} {'seconds':>9} {'vs zambezi':>10}")
    for case, eng, t in sorted(rows, key=lambda r: r[0]):
        ratio = f"{t / base[case]:.2f}x" if case in base else ""
        print(f"{case:22} {eng:8} {t:9.3f} {ratio:>10}")


if __name__ == "__main__":
    main()
