"""Positional arguments in pandas' order.  The accelerator hands a user's
positional arguments to zambezi as written, so a zambezi method whose
positional parameters come in another order than pandas' answers another
question (``s.value_counts(True)``: normalize in pandas).  For every
method and function zambezi shares with pandas, the names of the
parameters that can be passed by position must be pandas' names in
pandas' order, as far as both have them; zambezi may have fewer, or more
after pandas' last.  Known differences are listed with their reasons.

The oracle is the installed pandas' own signatures; they move between
pandas releases, so the check runs for the releases the list was made
against (3.0 and 3.1) and is skipped, saying so, for others."""

import inspect

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

pytestmark = pytest.mark.skipif(
    tuple(int(x) for x in pd.__version__.split(".")[:2]) not in ((3, 0), (3, 1)),
    reason="the known differences below were listed against pandas 3.0 / 3.1")

# (class name as zambezi has it, method) -> why the positions differ
KNOWN = {
    ("Series", "reindex"): "the frame's signature (labels, index, columns ...): the first "
                           "positional is the labels in both",
    ("Series", "swaplevel"): "pandas' third is copy (no effect), zambezi's axis",
    ("GroupBy", "corr"): "zambezi's own corr(a, b) of two columns per group",
}

if tuple(int(x) for x in pd.__version__.split(".")[:2]) < (3, 1):
    KNOWN[("Series", "filter")] = "zambezi has pandas 3.1's filter(arg, /, ...); 3.0 said items"
    KNOWN[("DataFrame", "filter")] = "as Series.filter"

_KINDS = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _positional(f):
    try:
        sig = inspect.signature(f)
    except (TypeError, ValueError):
        return None
    return [p.name for p in sig.parameters.values() if p.kind in _KINDS and p.name != "self"]


def _mismatches(zcls, pcls):
    out = []
    for name in sorted(dir(pcls)):
        if name.startswith("_"):
            continue
        zf, pf = getattr(zcls, name, None), getattr(pcls, name, None)
        if zf is None or not callable(zf) or isinstance(zf, property):
            continue
        a, b = _positional(zf), _positional(pf)
        if a is None or b is None:
            continue
        n = min(len(a), len(b))
        if a[:n] != b[:n] and (zcls.__name__, name) not in KNOWN:
            out.append(f"{zcls.__name__}.{name}: zambezi {a[:n]}, pandas {b[:n]}")
    return out


def _pairs():
    pdf = pd.DataFrame({"k": [1, 2], "v": [1.0, 2.0], "s": ["a", "b"],
                        "t": pd.to_datetime(["2024-01-01", "2024-01-02"])})
    zdf = zb.from_pandas(pdf)
    made = [
        lambda m: m,
        lambda m: m.groupby("k"),
        lambda m: m.groupby("k")["v"],
        lambda m: m["v"].groupby(m["k"]),
        lambda m: m["v"].rolling(2),
        lambda m: m["v"].expanding(),
        lambda m: m["v"].ewm(span=2),
        lambda m: m.groupby("k")["v"].rolling(2),
        lambda m: m["s"].str,
        lambda m: m["t"].dt,
        lambda m: m.set_index("t")["v"].resample("D"),
        lambda m: m.set_index("t").resample("D"),
    ]
    out = [(zb.Series, pd.Series), (zb.DataFrame, pd.DataFrame), (zb.Index, pd.Index)]
    out += [(type(f(zdf)), type(f(pdf))) for f in made[1:]]
    return out


@pytest.mark.parametrize("zcls,pcls", _pairs(), ids=lambda c: getattr(c, "__name__", str(c)))
def test_methods_take_positions_in_pandas_order(zcls, pcls):
    assert _mismatches(zcls, pcls) == []


def test_functions_take_positions_in_pandas_order():
    bad = []
    for name in sorted(dir(pd)):
        zf, pf = getattr(zb, name, None), getattr(pd, name, None)
        if zf is None or not inspect.isfunction(zf):
            continue
        a, b = _positional(zf), _positional(pf)
        if a is None or b is None:
            continue
        n = min(len(a), len(b))
        if a[:n] != b[:n]:
            bad.append(f"zb.{name}: zambezi {a[:n]}, pandas {b[:n]}")
    assert bad == []


def test_known_differences_still_differ():
    """An entry of KNOWN that no longer differs should leave the list."""
    classes = {c.__name__: c for c, _ in _pairs()}
    pclasses = {z.__name__: p for z, p in _pairs()}
    for (cls, name) in KNOWN:
        a = _positional(getattr(classes[cls], name))
        b = _positional(getattr(pclasses[cls], name))
        n = min(len(a), len(b))
        assert a[:n] != b[:n], (cls, name)


def test_moved_arguments_answer_as_pandas():
    rng = np.random.default_rng(0)
    pdf = pd.DataFrame({"k": rng.integers(0, 3, 40), "v": rng.integers(0, 4, 40)})
    zdf = zb.from_pandas(pdf)
    # a column's groupby: normalize first; a frame's: subset first
    got = zdf.groupby("k")["v"].value_counts(True).to_pandas()
    want = pdf.groupby("k")["v"].value_counts(True)
    pd.testing.assert_series_equal(got, want, check_dtype=False, check_index_type=False)
    got = zdf.groupby("k").value_counts(["v"], True).to_pandas()
    want = pdf.groupby("k").value_counts(["v"], True)
    pd.testing.assert_series_equal(got, want, check_dtype=False, check_index_type=False)
    # Series.apply's second positional is args
    s = pd.Series([1.0, 2.0, 3.0])
    got = zb.from_pandas(s).apply(lambda x, a: x * a, (10,)).to_pandas()
    pd.testing.assert_series_equal(got, s.apply(lambda x, a: x * a, (10,)))
    # Series.map takes func= by name
    got = zb.from_pandas(s).map(func={1.0: "a"}).to_pandas()
    pd.testing.assert_series_equal(got, s.map(func={1.0: "a"}), check_dtype=False)
    # GroupBy.agg takes func= by name
    got = zdf.groupby("k").agg(func="sum").to_pandas()
    pd.testing.assert_frame_equal(got, pdf.groupby("k").agg(func="sum"), check_dtype=False)
    # Index.min / max take axis first; to_series takes index first
    idx = pd.Index([3, 1, 2])
    assert zb.Index([3, 1, 2]).min(None) == idx.min(None)
    assert zb.Index([3, 1, 2]).max(0) == idx.max(0)
    lab = pd.Index(["x", "y", "z"])
    got = zb.Index([3, 1, 2]).to_series(zb.Index(["x", "y", "z"])).to_pandas()
    pd.testing.assert_series_equal(got, idx.to_series(lab), check_index_type=False)
    # argsort takes axis first
    s2 = pd.Series([3.0, 1.0, 2.0])
    got = zb.from_pandas(s2).argsort(0).to_pandas()
    pd.testing.assert_series_equal(got, s2.argsort(0), check_dtype=False)
