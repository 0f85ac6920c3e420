"""Shared machinery of the db-benchmark harness: loading generated data into
each engine, timing and memory measurement of one question, the answer
summaries that are compared across engines, and the report.

Memory: for every run of a question the harness resets the process's peak
resident set (Linux: writing "5" to /proc/self/clear_refs resets VmHWM),
reads VmRSS before and VmHWM after, and reports the difference: the most
resident memory the question added on top of what the process already held
(input data, earlier results still cached by an engine's allocator).  This
sees C and Rust allocations that tracemalloc cannot, but it counts pages,
not bytes asked for, and an allocator that keeps freed pages (polars'
jemalloc, glibc arenas) can serve a question from memory it already holds,
which then does not show.  Where the reset is not allowed the harness falls
back to getrusage's ru_maxrss, which only grows: a question then shows only
by how much it raised the process's lifetime peak.  For zambezi it also
reports the engine allocator's own peak (_core.alloc_stats()
['host_peak_bytes'] after alloc_reset_peak(), minus the bytes live before):
exact bytes, all engine allocations, none of Python's.
"""
import gc
import math
import os
import resource
import time

import numpy as np
import pyarrow as pa

ENGINES = ("zambezi", "pandas", "polars", "duckdb")
REL_TOL = 0.005  # sums of numeric result columns must agree within 0.5%


# ---------------------------------------------------------------------------
# memory
# ---------------------------------------------------------------------------

def _status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def _reset_hwm():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


HWM_RESET = _reset_hwm()
MEMORY_METHOD = ("VmHWM (reset per run via /proc/self/clear_refs) - VmRSS before"
                 if HWM_RESET else "ru_maxrss growth (lifetime peak only; reset not permitted)")


class MemProbe:
    """Peak extra resident bytes over one run (see the module doc)."""

    def __enter__(self):
        gc.collect()
        if HWM_RESET:
            _reset_hwm()
            self.base = _status_kb("VmRSS")
        else:
            self.base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return self

    def __exit__(self, *exc):
        peak = _status_kb("VmHWM") if HWM_RESET else \
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        self.peak_bytes = max(peak - self.base, 0) * 1024
        return False


def zb_alloc_probe():
    """(start, stop) functions measuring the zambezi allocator's peak, or None."""
    try:
        from zambezi import _core
        _core.alloc_stats()
    except Exception:
        return None

    def start():
        _core.alloc_reset_peak()
        return _core.alloc_stats()["host_bytes"]

    def stop(base):
        return max(_core.alloc_stats()["host_peak_bytes"] - base, 0)

    return start, stop


# ---------------------------------------------------------------------------
# loading data into each engine
# ---------------------------------------------------------------------------

def to_pandas(table):
    """pandas frame as db-benchmark's pandas scripts load it: dictionary
    strings -> category, ints with missing values -> nullable IntNN, floats
    with missing values -> NaN, plain strings -> pandas' default str."""
    import pandas as pd

    cols = {}
    for name in table.column_names:
        col = table[name].combine_chunks()
        t = col.type
        if pa.types.is_dictionary(t):
            codes = col.indices.fill_null(-1).to_numpy(zero_copy_only=False)
            cats = pd.Index(col.dictionary.to_pandas())
            cols[name] = pd.Categorical.from_codes(codes, cats)
        elif pa.types.is_integer(t) and col.null_count:
            vals = col.fill_null(0).to_numpy()
            mask = col.is_null().to_numpy(zero_copy_only=False)
            cols[name] = pd.arrays.IntegerArray(vals, mask)
        elif pa.types.is_floating(t) or pa.types.is_integer(t):
            cols[name] = col.to_numpy(zero_copy_only=False)  # nulls -> NaN
        else:
            cols[name] = col.to_pandas()  # pandas' default string dtype
    return pd.DataFrame(cols)


def to_polars(table):
    import polars as pl

    return pl.from_arrow(table)


def duckdb_table(con, name, table, strings):
    """Create table `name` in duckdb from an arrow table; with
    strings="category" the string columns become ENUM types as in
    db-benchmark's duckdb scripts (VARCHAR otherwise)."""
    con.register("_src", table)
    sel = []
    for col in table.column_names:
        if strings == "category" and pa.types.is_dictionary(table.schema.field(col).type):
            ty = f"enum_{name}_{col}"
            con.execute(f"DROP TYPE IF EXISTS {ty}")
            cats = table[col].combine_chunks().dictionary
            con.register("_cats", pa.table({"c": cats}))
            con.execute(f"CREATE TYPE {ty} AS ENUM (SELECT c FROM _cats)")
            con.unregister("_cats")
            sel.append(f"CAST({col} AS VARCHAR)::{ty} AS {col}")
        else:
            sel.append(f"CAST({col} AS VARCHAR) AS {col}"
                       if pa.types.is_dictionary(table.schema.field(col).type) else col)
    con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT {', '.join(sel)} FROM _src")
    con.unregister("_src")


def to_zambezi(table):
    import zambezi as zb

    return zb.DataFrame(table)


# ---------------------------------------------------------------------------
# answers and checks
# ---------------------------------------------------------------------------

def as_arrow(result):
    """Any engine's answer as a pyarrow Table (outside the timed region)."""
    if isinstance(result, pa.Table):
        return result
    mod = type(result).__module__
    if mod.startswith("pandas"):
        return pa.Table.from_pandas(result, preserve_index=False)
    if mod.startswith("polars"):
        return result.to_arrow()
    if mod.startswith("duckdb"):
        return result.to_arrow_table() if hasattr(result, "to_arrow_table") else result.arrow()
    if hasattr(result, "__arrow_c_stream__"):
        t = pa.table(result)
        # the row labels, as pandas' answer above leaves them out (q8's head(2)
        # keeps the rows' labels; polars and duckdb have none)
        keep = [n for n in t.column_names if not n.startswith("__index_level_")]
        return t.select(keep)
    raise TypeError(f"cannot read an answer of type {type(result).__name__}")


def summarize(result):
    """(rows, [(column, kind, value)]): numeric columns -> sum ignoring
    missing values; other columns -> count of non-missing values."""
    t = as_arrow(result)
    cols = []
    for name in t.column_names:
        c = t[name]
        ty = c.type
        if pa.types.is_dictionary(ty):
            ty = ty.value_type
        if pa.types.is_decimal(ty):  # duckdb's HUGEINT sums
            c, ty = c.cast(pa.float64()), pa.float64()
        if pa.types.is_integer(ty) or pa.types.is_floating(ty) or pa.types.is_boolean(ty):
            v = c.to_numpy(zero_copy_only=False).astype(np.float64)  # nulls -> NaN
            cols.append((name, "sum", float(np.nansum(v))))
        else:
            cols.append((name, "count", int(len(c) - c.null_count)))
    return t.num_rows, cols


def _close(a, b):
    if a == b:
        return True
    if math.isnan(a) or math.isnan(b):
        return False
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b), 1e-300)


def compare(s, ref):
    """'' when summary s agrees with ref, else what differs.  Columns are
    matched by position (engines name join suffixes differently)."""
    rows, cols = s
    rrows, rcols = ref
    problems = []
    if rows != rrows:
        problems.append(f"rows {rows} vs {rrows}")
    if len(cols) != len(rcols):
        problems.append(f"columns {[c[0] for c in cols]} vs {[c[0] for c in rcols]}")
    else:
        for (n, k, v), (rn, rk, rv) in zip(cols, rcols):
            if k != rk:
                problems.append(f"{n}: {k} vs {rn}: {rk}")
            elif not _close(v, rv):
                problems.append(f"{n} {k} {v:.6g} vs {rv:.6g}")
    return "; ".join(problems)


# ---------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------

def run_question(fn, repeat, zb_probe=None):
    """Run fn() 1 + repeat times like db-benchmark (run 1, then the best of
    the following runs as run 2).  Returns a dict with run1, run2 (seconds),
    mem1 (peak extra RSS bytes of run 1), zb_mem1 (engine allocator peak of
    run 1, zambezi only), summary of the last answer, or error."""
    out = {}
    times, mems, zmems = [], [], []
    ans = None
    for i in range(1 + repeat):
        ans = None
        zbase = zb_probe[0]() if zb_probe else None
        with MemProbe() as m:
            t0 = time.perf_counter()
            ans = fn()
            t = time.perf_counter() - t0
        times.append(t)
        mems.append(m.peak_bytes)
        if zb_probe:
            zmems.append(zb_probe[1](zbase))
        if i == 0:
            out["summary"] = summarize(ans)  # checked answer: the first run's
    out["run1"] = times[0]
    out["run2"] = min(times[1:]) if len(times) > 1 else None
    out["mem1"] = mems[0]
    if zmems:
        out["zb_mem1"] = zmems[0]
    del ans
    return out


def check_all(results, questions, engines):
    """Compare every engine's answer with every other's; store per engine
    and question 'ok' or the first disagreement in results[e][q]['check']."""
    for q in questions:
        have = [e for e in engines if q in results.get(e, {}) and "summary" in results[e][q]]
        for e in have:
            bad = []
            for other in have:
                if other == e:
                    continue
                diff = compare(results[e][q]["summary"], results[other][q]["summary"])
                if diff:
                    bad.append(f"vs {other}: {diff}")
            agree = [o for o in have if o != e and not compare(results[e][q]["summary"],
                                                               results[o][q]["summary"])]
            if not bad:
                results[e][q]["check"] = "ok" if len(have) > 1 else "unchecked"
            else:
                results[e][q]["check"] = ("MISMATCH " + bad[0] +
                                          (f" (agrees with {', '.join(agree)})" if agree else ""))


def fmt_s(x):
    return f"{x:8.3f}" if x is not None else f"{'n/a':>8}"


def fmt_mb(b):
    return f"{b / 2**20:7.0f}" if b is not None else f"{'n/a':>7}"


def report(title, results, questions, engines, out=print):
    """Per-question table: run1 / run2 seconds, peak MB and check per engine,
    then totals and ratios of every peer to zambezi (and to each other)."""
    out(f"\n== {title}")
    out(f"memory column: {MEMORY_METHOD}")
    for q in questions:
        out(f"{q}")
        for e in engines:
            r = results.get(e, {}).get(q)
            if r is None:
                continue
            if "error" in r:
                out(f"  {e:<8} {'not available' if r.get('missing') else 'ERROR'}: {r['error']}")
                continue
            zm = f" zb-alloc {fmt_mb(r['zb_mem1']).strip()} MB" if "zb_mem1" in r else ""
            out(f"  {e:<8} run1 {fmt_s(r['run1'])} s  run2 {fmt_s(r['run2'])} s  "
                f"peak +{fmt_mb(r['mem1']).strip():>6} MB{zm}  {r.get('check', '')}")
    tot = totals(results, questions, engines)
    out("\ntotals over the questions every listed engine answered "
        f"({', '.join(tot['common']) or 'none'}):")
    for e in engines:
        if e in tot["run1"]:
            out(f"  {e:<8} run1 {tot['run1'][e]:8.3f} s   run2 "
                f"{fmt_s(tot['run2'].get(e)).strip()} s")
        else:
            out(f"  {e:<8} not available")
    ratio_lines(tot, engines, out)
    return tot


def totals(results, questions, engines):
    ran = [e for e in engines if any("run1" in results.get(e, {}).get(q, {}) for q in questions)]
    common = [q for q in questions if all("run1" in results[e].get(q, {}) for e in ran)]
    t1, t2 = {}, {}
    for e in ran:
        t1[e] = sum(results[e][q]["run1"] for q in common)
        r2 = [results[e][q]["run2"] for q in common]
        if r2 and all(x is not None for x in r2):
            t2[e] = sum(r2)
    return {"common": common, "run1": t1, "run2": t2, "engines": ran}


def ratio_lines(tot, engines, out=print):
    ran = [e for e in engines if e in tot["run1"]]
    if len(ran) < 2:
        return
    out("ratios of run-1 totals (row engine time / column engine time; "
        "below 1: the row engine is faster):")
    out("  " + " " * 9 + "".join(f"{e:>10}" for e in ran))
    for a in ran:
        cells = "".join(f"{tot['run1'][a] / tot['run1'][b]:>9.2f}x" if tot["run1"][b] else
                        f"{'n/a':>10}" for b in ran)
        out(f"  {a:<9}{cells}")


def run_engines(questions, engines, loaders, impls, repeat, log=print):
    """For each engine: load its data (timed), answer every question, keep
    only summaries/timings, free the data.  A missing implementation
    (zambezi without groupby / merge yet) is recorded as not available; an
    engine error is recorded as the error text."""
    results = {}
    for e in engines:
        results[e] = {}
        if impls[e].get("_missing"):
            for q in questions:
                results[e][q] = {"error": impls[e]["_missing"], "missing": True}
            log(f"{e}: {impls[e]['_missing']}")
            continue
        try:
            t0 = time.perf_counter()
            data = loaders[e]()
            results[e]["_load_s"] = time.perf_counter() - t0
        except Exception as ex:  # engine not installed / cannot read the data
            for q in questions:
                results[e][q] = {"error": f"load failed: {type(ex).__name__}: {ex}"[:300],
                                 "missing": isinstance(ex, ImportError)}
            log(f"{e}: load failed: {ex}")
            continue
        probe = zb_alloc_probe() if e == "zambezi" else None
        for q in questions:
            fn = impls[e].get(q)
            missing = impls[e].get("_missing")
            if fn is None or missing:
                results[e][q] = {"error": missing or "not implemented", "missing": True}
                continue
            try:
                results[e][q] = run_question(lambda: fn(data), repeat, probe)
                log(f"  {e:<8} {q}: {results[e][q]['run1']:.3f} s")
            except Exception as ex:
                results[e][q] = {"error": f"{type(ex).__name__}: {ex}"[:300]}
                log(f"  {e:<8} {q}: ERROR {type(ex).__name__}: {ex}"[:300])
        if hasattr(data, "close"):
            try:
                data.close()
            except Exception:
                pass
        del data
        gc.collect()
    check_all(results, questions, engines)
    return results


def engine_versions(engines):
    v = {}
    for e in engines:
        try:
            mod = __import__(e)
            v[e] = getattr(mod, "__version__", "?")
        except Exception:
            v[e] = "not installed"
    return v


def cpu_info():
    return {"cpus": os.cpu_count(), "affinity": len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity") else None}
