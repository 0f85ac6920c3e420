"""Printing under zambezi.pandas is pandas' own, byte for byte: repr,
str, _repr_html_, to_string, describe and info of frames and Series with
several dtypes, nulls, many columns and many rows, both as built and after
zambezi served a call on them (so they are printed from a zambezi-held
frame converted back).  The oracle is the same script run on plain pandas.
"""

import json

import pytest

from test_accel import _run

SCRIPT = r'''
import io
import numpy as np
import pandas as pd

rng = np.random.default_rng(3)
n = 12
v = rng.normal(size=n).round(4)
v[[2, 7]] = np.nan
frames = {
    "dtypes": pd.DataFrame({
        "i": np.arange(n, dtype="int64") - 4,
        "u8": np.arange(n, dtype="uint8"),
        "f32": np.linspace(0, 1, n, dtype="float32"),
        "v": v,
        "b": np.arange(n) % 3 == 0,
        "s": pd.array(["ant", None, "bee", "cat"] * 3, dtype="str"),
        "t": pd.date_range("2024-01-01 06:00", periods=n, freq="37h").as_unit("ns"),
        "d": pd.to_timedelta(np.arange(n) * 3600, unit="s"),
        # categories given: pandas' categories then have no validity bitmap,
        # as zambezi's converted ones (see the xfail below)
        "c": pd.Categorical(["x", "y", None] * 4, categories=["x", "y"]),
    }),
    "nulls": pd.DataFrame({"a": [np.nan] * 4, "b": pd.array([None, "q", None, "r"], dtype="str"),
                           "c": [1.5, None, -2.25, 1e10]}),
    "wide": pd.DataFrame(rng.integers(-999, 999, (5, 40)),
                         columns=[f"col_{j}" for j in range(40)]),
    "long": pd.DataFrame({"k": np.arange(500) % 7, "x": np.arange(500) * 0.5,
                          "s": pd.array([f"row{i}" for i in range(500)], dtype="str")}),
    "indexed": pd.DataFrame({"x": [3.0, 1.0, 2.0]}, index=pd.Index(["p", "q", "r"], name="key")),
    "empty": pd.DataFrame({"a": pd.Series([], dtype="float64")}),
}


def show(name, obj):
    print(f"== {name}")
    print(repr(obj))
    print(str(obj))
    print(obj.to_string())
    html = getattr(obj, "_repr_html_", None)
    if html is not None:
        print(html())
    try:
        print(obj.describe())
        if isinstance(obj, pd.DataFrame):
            print(obj.describe(include="all"))
    except ValueError as e:          # describe of a frame with no columns to describe
        print("describe:", type(e).__name__, e)
    if hasattr(obj, "info"):
        buf = io.StringIO()
        obj.info(buf=buf)
        print(buf.getvalue().replace(hex(id(obj)), "ID"))


for name, df in frames.items():
    show(name, df)
    # after a call zambezi serves (with MIN_ROWS=0): printed from a frame
    # that zambezi held and converts back
    show(name + " sorted", df.iloc[::-1].reset_index(drop=True) if name == "empty"
         else df.head(len(df)))
    for col in df.columns[:3]:
        show(f"{name}[{col}]", df[col])
show("groupby", frames["long"].groupby("k").x.sum())
show("filtered", frames["long"][frames["long"].x > 200.0])   # the known difference below
cats = pd.DataFrame({"c": pd.Categorical(["x", "y", None] * 4)})   # and this one
show("factorized categories", cats.head(len(cats)))
'''


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("repr")
    path = d / "show.py"
    path.write_text(SCRIPT)
    plain = _run([str(path)]).stdout
    prof = d / "p.json"
    accel = _run(["-m", "zambezi.pandas", f"--profile-json={prof}", str(path)],
                 {"ZAMBEZI_PANDAS_MIN_ROWS": "0"}).stdout
    cut = "\n== filtered\n"
    return plain.split(cut), accel.split(cut), prof


def test_printing_is_byte_identical_to_pandas(outputs):
    (plain, _), (accel, _), prof = outputs
    assert plain.count("\n== ") + plain.startswith("== ") == 27 and "<table" in plain and "col_39" in plain
    if accel != plain:
        import difflib
        diff = "\n".join(difflib.unified_diff(plain.splitlines(), accel.splitlines(),
                                              "pandas", "zambezi.pandas", lineterm=""))
        raise AssertionError(f"printing differs from pandas:\n{diff[:6000]}")
    # zambezi did serve calls in this run (printing itself always goes to pandas)
    funcs = json.loads(prof.read_text())["functions"]
    assert funcs["DataFrame.head"]["fast_calls"] >= 1
    assert funcs["DataFrame.__repr__"]["fast_calls"] == 0


@pytest.mark.xfail(strict=True, reason=(
    "pandas' categories of text made by factorizing values (astype('category'), "
    "pd.Categorical(values)) carry an Arrow validity bitmap; those zambezi converts back "
    "have none (as pandas' own with categories= given), so info()'s memory usage is a "
    "byte less per 8 categories"))
def test_info_of_factorized_text_categories(outputs):
    cut = "\n== factorized categories\n"
    plain, accel = (part[1].split(cut)[1] for part in outputs[:2])
    assert "memory usage" in plain
    assert accel == plain


@pytest.mark.xfail(strict=True, reason=(
    "pandas 3 keeps a RangeIndex when a filter or take of a RangeIndex leaves equally "
    "spaced rows (rows 401..499 here: RangeIndex(401, 500)); zambezi gives an int64 "
    "Index, so info() says 'Index:' and its memory usage differs"))
def test_printing_after_a_filter_that_keeps_a_range(outputs):
    cut = "\n== factorized categories\n"
    plain, accel = (part[1].split(cut)[0] for part in outputs[:2])
    assert "RangeIndex: 99 entries, 401 to 499" in plain
    assert accel == plain
