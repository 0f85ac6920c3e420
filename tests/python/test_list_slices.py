"""List columns as pandas shows and slices its object columns of lists
(zambezi._lists): ``.str[a:b:c]`` after str.split (every slice form,
negative and out-of-range bounds, null rows, empty lists, a slice of a
column that starts inside its buffers), and the repr of list elements
with tabs and line breaks (pandas escapes them)."""

import itertools

import numpy as np
import pandas as pd
import pytest

import zambezi as zb
from zambezi.errors import InvalidValueError


def texts(n, seed):
    rng = np.random.default_rng(seed)
    words = np.array(["a", "bb", "ß", "x\ty", "", "zz"], dtype=object)
    out = []
    for _ in range(n):
        k = int(rng.integers(0, 6))
        out.append(None if rng.random() < 0.15 else " ".join(rng.choice(words, k)))
    return pd.Series(out, dtype=object)


BOUNDS = [None, 0, 1, 2, -1, -3, 7, -9]


def norm(values):
    """Rows as lists, a missing row (pandas: NaN or None) as None."""
    return [v if isinstance(v, list) else None for v in values]


@pytest.mark.parametrize("step", [None, 1, 2, -1, -2])
def test_list_slices_vs_pandas(step):
    p = texts(300, 7).str.split(" ")
    z = zb.Series(texts(300, 7)).str.split(" ")
    for a, b in itertools.product(BOUNDS, BOUNDS):
        exp = norm(p.str[a:b:step].tolist())
        got = norm(z.str[a:b:step].to_pandas().tolist())
        assert got == exp, (a, b, step)
    # a slice of the column: offsets that do not start at 0
    assert norm(z.iloc[5:].str[1::step].to_pandas().tolist()) == \
        norm(p.iloc[5:].str[1::step].tolist())
    with pytest.raises(InvalidValueError, match="zero"):
        z.str[::0]


def test_list_repr_escapes_as_pandas():
    strings = pd.Series(["x\ty,z\nw\r,q\\b", "it's,é", None, "a"])
    exp = repr(strings.str.split(","))
    got = repr(zb.Series(strings).str.split(","))
    assert got.splitlines()[:4] == exp.splitlines()[:4], (got, exp)
