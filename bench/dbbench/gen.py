"""Data generators for the db-benchmark group-by and join questions.

Reproduces, vectorised in numpy, the logic of h2oai/db-benchmark's
``_data/groupby-datagen.R`` (table G1) and ``_data/join-datagen.R`` (table x
and its small / medium / big right-hand tables).  R's random stream is not
reproduced (numpy's default generator, seed 108 like the R scripts), so the
values differ from the published CSV files while the shapes, cardinalities,
missing-value rules and key overlaps follow the specification.

Each generator returns a dict ``{name: Col}``: numpy values plus an optional
missing mask, and for string columns int32 codes into a list of categories
(the R scripts make factors).  ``to_arrow`` turns such a dict into a
``pyarrow.Table`` that every engine (zambezi, pandas, polars, duckdb) reads,
with string columns either dictionary-encoded (``strings="category"``, the
db-benchmark setting) or plain ``large_string`` (``strings="string"``).

    python bench/dbbench/gen.py groupby --rows 10000000 --k 100 --na 0 --csv out/
    python bench/dbbench/gen.py join --rows 10000000 --csv out/

writes CSV files named as db-benchmark names them (G1_1e7_1e2_0_0.csv,
J1_1e7_NA_0_0.csv, J1_1e7_1e1_0_0.csv, ...).
"""
import argparse
import math
import os
import sys
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

SEED = 108


@dataclass
class Col:
    """One generated column.

    values: numpy array (int32/int64/float64); for string columns the int32
      codes into ``categories`` (-1 where missing).
    mask: bool array, True where the value is missing, or None.
    categories: pyarrow string array of the labels (string columns only).
    """
    values: np.ndarray
    mask: np.ndarray = None
    categories: pa.Array = None

    @property
    def is_string(self):
        return self.categories is not None

    def take(self, idx):
        return Col(self.values[idx], None if self.mask is None else self.mask[idx],
                   self.categories)


def _labels(fmt_width, n):
    """pyarrow strings "id%0{w}d" (w=0: "id%d") for 1..n, built in C."""
    nums = pc.cast(pa.array(np.arange(1, n + 1, dtype=np.int64)), pa.string())
    if fmt_width:
        nums = pc.utf8_lpad(nums, width=fmt_width, padding="0")
    return pc.binary_join_element_wise("id", nums, "")


def pretty(n):
    """db-benchmark's number formatting in file names: 1e7, 1e2, 5e6."""
    e = int(math.floor(math.log10(n))) if n > 0 else 0
    m = n / 10 ** e
    return f"{m:g}e{e}" if m != int(m) else f"{int(m)}e{e}"


# ---------------------------------------------------------------------------
# group-by data: G1_<N>_<K>_<nas>_<sort>
# ---------------------------------------------------------------------------

def groupby_data(n, k, nas=0, sort=False, seed=SEED, int_dtype=np.int32):
    """Table G1 of db-benchmark with n rows and k groups.

    id1, id2: strings "id%03d" drawn from k values; id3: "id%010d" from n/k
    values; id4, id5: ints 1..k; id6: ints 1..n/k; v1: int 1..5; v2: int 1..15;
    v3: uniform float in [0, 100) rounded to 6 decimals.  nas (percent): as in
    the R script, for each id column that percentage of its *distinct present
    values* is chosen and every row holding one of them becomes missing; for
    v1..v3 that percentage of *rows* becomes missing.  sort: rows ordered by
    id1..id6 (missing first, as data.table's setkey does).
    """
    rng = np.random.default_rng(seed)
    nk = max(n // k, 1)
    it = np.dtype(int_dtype)
    d = {}
    cat_k = _labels(3, k)
    d["id1"] = Col(rng.integers(0, k, n, dtype=np.int32), None, cat_k)
    d["id2"] = Col(rng.integers(0, k, n, dtype=np.int32), None, cat_k)
    d["id3"] = Col(rng.integers(0, nk, n, dtype=np.int32), None, _labels(10, nk))
    d["id4"] = Col(rng.integers(1, k + 1, n).astype(it))
    d["id5"] = Col(rng.integers(1, k + 1, n).astype(it))
    d["id6"] = Col(rng.integers(1, nk + 1, n).astype(it))
    d["v1"] = Col(rng.integers(1, 6, n).astype(it))
    d["v2"] = Col(rng.integers(1, 16, n).astype(it))
    d["v3"] = Col(np.round(rng.random(n) * 100.0, 6))
    if nas > 0:
        for name in ("id1", "id2", "id3", "id4", "id5", "id6"):
            c = d[name]
            present = np.unique(c.values)
            nna = int(len(present) * (nas / 100.0))
            if nna:
                chosen = rng.choice(present, nna, replace=False)
                c.mask = np.isin(c.values, chosen)
        nna = int(n * (nas / 100.0))
        for name in ("v1", "v2", "v3"):
            if nna:
                m = np.zeros(n, dtype=bool)
                m[rng.choice(n, nna, replace=False)] = True
                d[name].mask = m
    for c in d.values():  # canonical form: codes -1 / values 0 (NaN) under the mask
        if c.mask is not None:
            c.values[c.mask] = -1 if c.is_string else (np.nan if c.values.dtype.kind == "f" else 0)
    if sort:
        keys = []
        for name in ("id1", "id2", "id3", "id4", "id5", "id6"):
            c = d[name]
            if c.is_string:  # order of the labels, not of the codes
                rank = np.argsort(np.argsort(np.asarray(c.categories.to_numpy(zero_copy_only=False),
                                                         dtype=object), kind="stable"))
                r = rank[np.maximum(c.values, 0)].astype(np.int64)
            else:
                r = c.values.astype(np.int64)
            if c.mask is not None:
                r = np.where(c.mask, -1, r)  # missing first
            keys.append(r)
        order = np.lexsort(keys[::-1])  # lexsort: last key is the primary one
        d = {name: c.take(order) for name, c in d.items()}
    return d


def groupby_name(n, k, nas, sort):
    return f"G1_{pretty(n)}_{pretty(k)}_{nas}_{int(bool(sort))}"


# ---------------------------------------------------------------------------
# join data: J1_<N>_NA_0_0 (x) and J1_<N>_<N/1e6|N/1e3|N>_0_0 (small/medium/big)
# ---------------------------------------------------------------------------

def _split_xlr(rng, n):
    """A random permutation of 1..round(1.1 n) cut in three: keys in both
    tables (90% of n), left-only keys (10%), right-only keys (10%)."""
    total = max(int(round(n * 1.1)), 1)
    nx = max(int(round(n * 0.9)), 1)
    nl = max(n - nx, 0)
    key = rng.permutation(total).astype(np.int64) + 1
    return key[:nx], key[nx:nx + nl], key[nx + nl:]


def _sample_all(rng, keys, size):
    """Every key at least once (when size allows), the rest drawn with
    replacement, shuffled — R's sample_all()."""
    if size <= len(keys):
        y = keys[:size].copy()
    else:
        y = np.concatenate([keys, keys[rng.integers(0, len(keys), size - len(keys))]])
    rng.shuffle(y)
    return y


def _key_strings(ints, nmax):
    """The string column "id%d" of int keys, as codes into labels id1..idnmax."""
    return Col((ints - 1).astype(np.int32), None, _labels(0, nmax))


def join_data(n, seed=SEED, int_dtype=np.int32):
    """The join tables of db-benchmark for x with n rows.

    Returns {"x": ..., "small": ..., "medium": ..., "big": ...}, each a dict of
    Col.  id1 / id2 / id3 have n/1e6, n/1e3, n distinct keys on each side,
    90% of them shared; id4 / id5 / id6 are the strings "id<id1|id2|id3>"
    (factors in R); x carries v1 and the right tables v2, floats in [0, 100)
    rounded to 6 decimals.  small / medium / big have n/1e6, n/1e3 and n rows
    and hold each of their keys once, so every join is many-to-one.
    No missing values (db-benchmark runs its join questions on NA_0 data).
    """
    if n < 1_000_000:
        raise ValueError(f"join data needs at least 1e6 rows (small has rows/1e6), got {n}")
    rng = np.random.default_rng(seed)
    it = np.dtype(int_dtype)
    sizes = {1: n // 1_000_000, 2: n // 1_000, 3: n}
    parts = {i: _split_xlr(rng, s) for i, s in sizes.items()}
    nmax = {i: len(p[0]) + len(p[1]) + len(p[2]) for i, p in parts.items()}

    def side(i, which, size):  # which: 1 = left-only keys, 2 = right-only keys
        both, left, right = parts[i]
        return _sample_all(rng, np.concatenate([both, left if which == 1 else right]), size)

    def table(ids, size, vname, is_x):
        t = {}
        ints = {i: side(i, 1 if is_x else 2, size) for i in ids}
        for i in ids:
            t[f"id{i}"] = Col(ints[i].astype(it))
        for i in ids:
            t[f"id{i + 3}"] = _key_strings(ints[i], nmax[i])
        t[vname] = Col(np.round(rng.random(size) * 100.0, 6))
        return t

    return {
        "x": table((1, 2, 3), n, "v1", True),
        "small": table((1,), sizes[1], "v2", False),
        "medium": table((1, 2), sizes[2], "v2", False),
        "big": table((1, 2, 3), sizes[3], "v2", False),
    }


def join_names(n):
    return {"x": f"J1_{pretty(n)}_NA_0_0", "small": f"J1_{pretty(n)}_{pretty(n // 10**6)}_0_0",
            "medium": f"J1_{pretty(n)}_{pretty(n // 10**3)}_0_0",
            "big": f"J1_{pretty(n)}_{pretty(n)}_0_0"}


# ---------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------

def to_arrow_column(c, strings="category"):
    if c.is_string:
        codes = pa.array(c.values, type=pa.int32(), mask=c.mask)
        arr = pa.DictionaryArray.from_arrays(codes, c.categories)
        if strings == "string":
            arr = arr.cast(pa.large_string())
        return arr
    return pa.array(c.values, mask=c.mask)


def to_arrow(data, strings="category"):
    """A pyarrow.Table of a generated dict of Col."""
    if strings not in ("category", "string"):
        raise ValueError(f"strings must be 'category' or 'string', not {strings!r}")
    return pa.table({name: to_arrow_column(c, strings) for name, c in data.items()})


def write_csv(table, path):
    """Write a pyarrow table as CSV (strings plain, missing values empty)."""
    import pyarrow.csv as pcsv

    cols = [c.cast(pa.large_string()) if pa.types.is_dictionary(c.type) else c
            for c in table.columns]
    pcsv.write_csv(pa.table(cols, names=table.column_names), path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["groupby", "join"])
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--k", type=float, default=100)
    ap.add_argument("--na", type=int, default=0, help="percent of missing values (groupby)")
    ap.add_argument("--sorted", action="store_true")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--csv", metavar="DIR", help="write CSV files into DIR")
    args = ap.parse_args(argv)
    n, k = int(args.rows), int(args.k)
    if args.what == "groupby":
        tables = {groupby_name(n, k, args.na, args.sorted):
                  groupby_data(n, k, args.na, args.sorted, args.seed)}
    else:
        d = join_data(n, args.seed)
        names = join_names(n)
        tables = {names[t]: d[t] for t in d}
    for name, data in tables.items():
        t = to_arrow(data)
        print(f"{name}: {t.num_rows:,} rows, columns {t.column_names}")
        if args.csv:
            os.makedirs(args.csv, exist_ok=True)
            path = os.path.join(args.csv, name + ".csv")
            write_csv(t, path)
            print(f"  wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
