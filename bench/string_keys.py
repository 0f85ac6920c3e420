"""Plain string keys: zambezi string vs zambezi categorical vs polars vs duckdb.

    python bench/string_keys.py [--rows 10000000] [--repeat 3] [--only NAME,...]

Workloads (issue #21), all on --rows rows:
  groupby_sum_K     group-by sum of a float column on one string key with K
                    distinct values (400, 10^5, 2*10^6), keys of 8 to 40 bytes,
                    some non-ASCII
  groupby_3agg_K    the same keys, sum, mean and max of three columns
  groupby_ascii_400 / groupby_nonascii_400
                    group-by sum on 400 keys that are all ASCII, or all carry
                    non-ASCII characters
  drop_duplicates   drop_duplicates on a string column of 10^6 distinct values
  unique            unique of the same column
  value_counts      value_counts of the same column
  merge             inner join of --rows rows on a 10^6-row table, string key
  brc               1BRC style: read_csv of "station;temp" lines, then
                    min/mean/max of temp per station (413 stations)
Each engine runs once per round, rounds interleaved, best of --repeat.
Timings are measurements, not tests.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

import zambezi as zb


PREFIXES = {
    "mixed": ["station", "Łódź-", "x", "a_long_common_prefix_of_text_", "key"],
    "ascii": ["station", "x", "a_long_common_prefix_of_text_", "key"],
    "nonascii": ["Łódź-", "São_Paulo_", "Zürich_ß_", "東京-"],
}


def keys_pool(k, rng, kind="mixed"):
    """k distinct strings of 8 to 40 bytes (a random prefix length, then the
    number): some non-ASCII ("mixed"), all ASCII, or all non-ASCII."""
    ids = np.arange(k)
    pre = np.array(PREFIXES[kind], dtype=object)
    pads = rng.integers(0, len(pre), k)
    out = np.empty(k, dtype=object)
    for j in range(len(pre)):  # per prefix, vectorized over its keys
        m = pads == j
        out[m] = np.char.add(pre[j], np.char.zfill(ids[m].astype(str), 8))
    return out


def best_interleaved(runs, repeat):
    best = {}
    for name, fn in runs.items():
        try:
            fn()
            best[name] = float("inf")
        except Exception as e:  # shown as missing
            print(f"  {name}: {type(e).__name__}: {str(e)[:80]}", file=sys.stderr)
    for _ in range(repeat):
        for name in best:
            t0 = time.perf_counter()
            runs[name]()
            best[name] = min(best[name], time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    n = a.rows
    rng = np.random.default_rng(42)
    import pandas as pd
    import pyarrow as pa
    try:
        import polars as pl
    except ImportError:
        pl = None
    try:
        import duckdb
    except ImportError:
        duckdb = None

    def engines(pdf, zfn, zcfn, plfn, sql):
        z = zb.from_pandas(pdf)
        zc = zb.from_pandas(pdf.astype({c: "category" for c in pdf.columns
                                        if pdf[c].dtype == object or str(pdf[c].dtype) == "str"}))
        runs = {"zambezi": lambda: zfn(z), "zambezi_cat": lambda: zcfn(zc)}
        if pl is not None:
            pf = pl.from_pandas(pdf)
            runs["polars"] = lambda: plfn(pf)
        if duckdb is not None:
            con = duckdb.connect()
            con.register("t", pa.Table.from_pandas(pdf, preserve_index=False))
            runs["duckdb"] = lambda: con.sql(sql).to_arrow_table()
        return runs

    results = []

    def report(name, best):
        z = best.get("zambezi")
        peers = [best[p] for p in ("polars", "duckdb") if p in best]
        line = f"{name:22s}" + "".join(f" {k}={v:.3f}s" for k, v in best.items())
        if z and peers:
            line += f"  (zambezi/best peer = {z / min(peers):.2f})"
        print(line, flush=True)
        results.append((name, best))

    three = {"v": "sum", "w": "mean", "x": "max"}
    cases = [(f"groupby_sum_{k}", k, "mixed", False) for k in (400, 100_000, 2_000_000)]
    cases += [(f"groupby_3agg_{k}", k, "mixed", True) for k in (400, 100_000, 2_000_000)]
    cases += [("groupby_ascii_400", 400, "ascii", False),
              ("groupby_nonascii_400", 400, "nonascii", False)]
    for name, k, kind, agg3 in cases:
        if only and name not in only:
            continue
        pool = keys_pool(k, rng, kind)
        cols = {"k": pool[rng.integers(0, k, n)], "v": rng.random(n)}
        if agg3:
            cols["w"] = rng.random(n)
            cols["x"] = rng.random(n)
        pdf = pd.DataFrame(cols)
        if agg3:
            runs = engines(
                pdf,
                lambda z: z.groupby("k", sort=False).agg(three),
                lambda z: z.groupby("k", sort=False, observed=True).agg(three),
                lambda p: p.group_by("k").agg(pl.col("v").sum(), pl.col("w").mean(),
                                              pl.col("x").max()),
                "select k, sum(v), avg(w), max(x) from t group by k")
        else:
            runs = engines(
                pdf,
                lambda z: z.groupby("k", sort=False).agg({"v": "sum"}),
                lambda z: z.groupby("k", sort=False, observed=True).agg({"v": "sum"}),
                lambda p: p.group_by("k").agg(pl.col("v").sum()),
                "select k, sum(v) from t group by k")
        report(name, best_interleaved(runs, a.repeat))
        del pdf, runs

    if not only or only & {"drop_duplicates", "unique", "value_counts", "merge"}:
        pool = keys_pool(1_000_000, rng)
        pdf = pd.DataFrame({"k": pool[rng.integers(0, len(pool), n)]})
        if not only or "drop_duplicates" in only:
            runs = engines(pdf, lambda z: z.drop_duplicates(), lambda z: z.drop_duplicates(),
                           lambda p: p.unique(maintain_order=True),
                           "select distinct k from t")
            report("drop_duplicates_1e6", best_interleaved(runs, a.repeat))
        if not only or "unique" in only:
            runs = engines(pdf, lambda z: z["k"].unique(), lambda z: z["k"].unique(),
                           lambda p: p["k"].unique(maintain_order=True),
                           "select distinct k from t")
            report("unique_1e6", best_interleaved(runs, a.repeat))
        if not only or "value_counts" in only:
            runs = engines(pdf, lambda z: z["k"].value_counts(), lambda z: z["k"].value_counts(),
                           lambda p: p["k"].value_counts(sort=True),
                           "select k, count(*) as c from t group by k order by c desc")
            report("value_counts_1e6", best_interleaved(runs, a.repeat))
        if not only or "merge" in only:
            right = pd.DataFrame({"k": pool, "w": rng.random(len(pool))})
            zr = zb.from_pandas(right)
            zrc = zb.from_pandas(right.astype({"k": "category"}))
            runs = engines(pdf, lambda z: z.merge(zr, on="k"), lambda z: z.merge(zrc, on="k"),
                           (lambda p, r=pl.from_pandas(right) if pl else None:
                            p.join(r, on="k")),
                           "select * from t join r using (k)")
            if duckdb is not None and "duckdb" in runs:
                con = duckdb.connect()
                con.register("t", pa.Table.from_pandas(pdf, preserve_index=False))
                con.register("r", pa.Table.from_pandas(right, preserve_index=False))
                runs["duckdb"] = lambda: con.sql(
                    "select * from t join r using (k)").to_arrow_table()
            report("merge_1e7x1e6", best_interleaved(runs, a.repeat))
        del pdf

    if not only or "brc" in only:
        stations = keys_pool(413, rng)
        st = stations[rng.integers(0, 413, n)]
        temp = np.round(rng.normal(15, 10, n), 1)
        path = os.path.join(tempfile.mkdtemp(), "measurements.txt")
        pd.DataFrame({"s": st, "t": temp}).to_csv(path, sep=";", header=False, index=False)

        def zrun():
            d = zb.read_csv(path, sep=";", header=None, names=["station", "temp"])
            return d.groupby("station").agg({"temp": ["min", "mean", "max"]})

        def zcrun():
            d = zb.read_csv(path, sep=";", header=None, names=["station", "temp"],
                            dtype={"station": "category"})
            return d.groupby("station", observed=True).agg({"temp": ["min", "mean", "max"]})

        runs = {"zambezi": zrun, "zambezi_cat": zcrun}
        if pl is not None:
            runs["polars"] = lambda: pl.read_csv(
                path, separator=";", has_header=False, new_columns=["station", "temp"]
            ).group_by("station").agg(pl.col("temp").min().alias("mn"),
                                      pl.col("temp").mean().alias("me"),
                                      pl.col("temp").max().alias("mx")).sort("station")
        if duckdb is not None:
            con = duckdb.connect()
            runs["duckdb"] = lambda: con.sql(
                f"select station, min(temp), avg(temp), max(temp) from read_csv('{path}', "
                "delim=';', header=false, columns={'station': 'VARCHAR', 'temp': 'DOUBLE'}) "
                "group by station order by station").to_arrow_table()
        report("brc_read_agg", best_interleaved(runs, a.repeat))
        os.remove(path)


if __name__ == "__main__":
    main()
