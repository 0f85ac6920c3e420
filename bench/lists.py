"""List columns: zambezi vs pandas (object columns of lists) and polars.

    python bench/lists.py [--rows 1000000] [--repeat 3] [--only zambezi,pandas,polars]

Data: --rows strings of 0-8 words from a small vocabulary joined by
spaces, 1% missing.  Cases:

- split: ``s.str.split(" ")`` into lists (polars ``str.split``);
- findall: ``s.str.findall(r"\\w+a\\b")`` (polars ``str.extract_all``);
- explode: the split lists, one row per word (polars ``explode``);
- len / get: ``str.len()`` and ``str[1]`` of the lists (polars ``list.len``,
  ``list.get(1, null_on_oob=True)``);
- join: ``str.join("-")`` of the lists (polars ``list.join``);
- agg(list): ``groupby(k)["w"].agg(list)`` over 1,000 keys (polars
  ``group_by().agg(pl.col("w"))``).

Prints the best of --repeat runs per case and engine, with the ratio to
zambezi, the command and the machine (nproc).  Measurements, not tests.
"""
import argparse
import os
import sys
import time

import numpy as np


def best(fn, repeat):
    t = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
    return min(t)


def make_data(n):
    rng = np.random.default_rng(1)
    vocab = np.array(["kafue", "zambezi", "luangwa", "lunga", "chambeshi", "mulungushi", "é"])
    k = rng.integers(0, 9, n)
    words = vocab[rng.integers(0, len(vocab), int(k.sum()))]
    ends = np.cumsum(k)
    text = [" ".join(words[e - c:e]) for c, e in zip(k, ends)]  # data building only
    for i in np.nonzero(rng.random(n) < 0.01)[0]:
        text[i] = None
    words = words[:n]
    keys = rng.integers(0, 1000, len(words))
    return text, keys, words


def run_zambezi(text, keys, words, repeat):
    import zambezi as zb

    s = zb.Series(text)
    # split's lists are built when first used other than by .str[i]
    # (which takes the piece without them): build them here, so that the
    # cases time the lists as pandas and polars make them
    lists = s.str.split(" ")
    lists._engine
    df = zb.DataFrame({"k": keys, "w": list(words)})
    return {
        "split": best(lambda: s.str.split(" ")._engine, repeat),
        "findall": best(lambda: s.str.findall(r"\w+a\b"), repeat),
        "explode": best(lambda: lists.explode(), repeat),
        "len": best(lambda: lists.str.len(), repeat),
        "get": best(lambda: lists.str[1], repeat),
        "join": best(lambda: lists.str.join("-"), repeat),
        "agg(list)": best(lambda: df.groupby("k")["w"].agg(list), repeat),
    }


def run_pandas(text, keys, words, repeat):
    import pandas as pd

    s = pd.Series(text, dtype=object)
    lists = s.str.split(" ")
    df = pd.DataFrame({"k": keys, "w": list(words)})
    return {
        "split": best(lambda: s.str.split(" "), repeat),
        "findall": best(lambda: s.str.findall(r"\w+a\b"), repeat),
        "explode": best(lambda: lists.explode(), repeat),
        "len": best(lambda: lists.str.len(), repeat),
        "get": best(lambda: lists.str[1], repeat),
        "join": best(lambda: lists.str.join("-"), repeat),
        "agg(list)": best(lambda: df.groupby("k")["w"].agg(list), repeat),
    }


def run_polars(text, keys, words, repeat):
    import polars as pl

    s = pl.Series(text, dtype=pl.String)
    lists = s.str.split(" ")
    df = pl.DataFrame({"k": keys, "w": list(words)})
    return {
        "split": best(lambda: s.str.split(" "), repeat),
        "findall": best(lambda: s.str.extract_all(r"\w+a\b"), repeat),
        "explode": best(lambda: lists.explode(), repeat),
        "len": best(lambda: lists.list.len(), repeat),
        "get": best(lambda: lists.list.get(1, null_on_oob=True), repeat),
        "join": best(lambda: lists.list.join("-"), repeat),
        "agg(list)": best(lambda: df.group_by("k").agg(pl.col("w")), repeat),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="zambezi,pandas,polars")
    args = ap.parse_args()
    text, keys, words = make_data(args.rows)
    runners = {"zambezi": run_zambezi, "pandas": run_pandas, "polars": run_polars}
    results = {}
    for name in args.only.split(","):
        try:
            results[name] = runners[name](text, keys, words, args.repeat)
        except ImportError as e:
            print(f"{name}: skipped ({e})", file=sys.stderr)
    print(f"# python {' '.join(sys.argv)}  (rows={args.rows}, nproc={os.cpu_count()})")
    cases = list(next(iter(results.values())).keys()) if results else []
    print(f"{'case':<10}" + "".join(f"{n:>14}" for n in results))
    for c in cases:
        z = results.get("zambezi", {}).get(c)
        cells = []
        for n in results:
            t = results[n][c]
            ratio = f" ({t / z:.1f}x)" if z and n != "zambezi" else ""
            cells.append(f"{t * 1000:8.1f}ms{ratio}")
        print(f"{c:<10}" + "".join(f"{x:>14}" for x in cells))


if __name__ == "__main__":
    main()
