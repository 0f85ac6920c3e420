"""zambezi.pandas and zambezi on the cases behind failures of pandas' own
series/ and indexing/ tests: each script runs under plain pandas and under
the accelerator with every frame tried on zambezi
(ZAMBEZI_PANDAS_MIN_ROWS=0) and prints the same bytes (results, names,
the warnings and exceptions pandas gives); zambezi's own Series are
compared with pandas side by side.
"""

import numpy as np
import pandas as pd
import pytest

import zambezi as zb

from conftest import same_under_accelerator as _same_as_pandas


OPERANDS = r'''
import operator
import warnings
from collections import deque
import numpy as np
import pandas as pd

def show(what, f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = f()
            out = f"{r.name!r} {r.tolist()}"
        except Exception as e:
            out = f"{type(e).__name__}: {str(e)[:70]}"
    print(what, out, [f"{x.category.__name__}: {str(x.message)[:50]}" for x in w])

for lname, rname in (("foo", None), ("foo", "bar"), ("baz", "baz"), (None, None)):
    left = pd.Series(range(5), name=lname)
    right = pd.Series(range(5, 10), name=rname)
    for box in (list, tuple, np.array, pd.Index, pd.Series, pd.array, range, deque):
        other = box(right) if box is not range else range(5, 10)
        for op in ("add", "rsub", "mul", "eq", "lt"):
            show(f"{lname}/{rname} {box.__name__} {op}", lambda: getattr(left, op)(other))
        for op in (operator.add, operator.pow, operator.ge, operator.and_, operator.xor):
            show(f"{lname}/{rname} {box.__name__} {op.__name__}", lambda: op(left, other))
for axis in (0, "index", 1, "columns"):
    show(f"axis={axis!r}", lambda: pd.Series([1.0, 2.0]).lt(pd.Series([2.0, 1.0]), axis=axis))
'''


def test_operator_names_warnings_and_errors_as_pandas(tmp_path):
    # an Index operand's name counts (s + pd.Index(...)); pandas 3.1 warns
    # about tuple, range and deque operands; & | ^ with a list raise
    # TypeError; a flex method refuses axis=1
    out = _same_as_pandas(tmp_path, OPERANDS)
    assert "foo/None Index add None" in out
    assert "Pandas4Warning: Operation with range is deprecated" in out
    assert "list and_ TypeError: Logical ops (and, or, xor)" in out
    assert "axis=1 ValueError: No axis named 1" in out


@pytest.mark.parametrize("iname", [None, "x", "bar"])
def test_series_with_index_operand_name(iname):
    p = pd.Series([1.0, 2.0, 3.0], name="x")
    z = zb.Series(p)
    zi, pi = zb.Index([4.0, 5.0, 6.0], name=iname), pd.Index([4.0, 5.0, 6.0], name=iname)
    for got, exp in ((z + zi, p + pi), (z.mul(zi), p.mul(pi)), (z < zi, p < pi),
                     (z - pi, p - pi)):
        pd.testing.assert_series_equal(got.to_pandas(), exp)


def test_logical_op_with_list_raises_as_pandas():
    p = pd.Series([True, False, True])
    z = zb.Series(p)
    for other in ([True, True, False], (True, True, False)):
        with pytest.raises(TypeError, match="dtype-less sequences") as zerr:
            z & other
        with pytest.raises(TypeError, match="dtype-less sequences"):
            p & other
        assert "Wrap the object" in str(zerr.value)
    other = np.array([True, True, False])
    pd.testing.assert_series_equal((z | other).to_pandas(), p | other)
    pd.testing.assert_series_equal((z ^ True).to_pandas(), p ^ True)


def test_flex_method_axis_checked_as_pandas():
    p = pd.Series([1, 2, 3])
    z = zb.Series(p)
    for axis in (0, "index", "rows"):
        pd.testing.assert_series_equal(z.add(1, axis=axis).to_pandas(), p.add(1, axis=axis))
    for axis in (1, "columns"):
        with pytest.raises(ValueError, match=f"No axis named {axis}"):
            p.eq(p, axis=axis)
        with pytest.raises(ValueError, match=f"No axis named {axis!r}"):
            z.eq(z, axis=axis)


MONKEYPATCH = r'''
import numpy as np
import pandas as pd
import pytest
from pandas.core.reshape import reshape as reshape_lib

class Mock(reshape_lib._Unstacker):
    def __init__(self, *args, **kwargs):
        raise RuntimeError("mocked unstacker")

df = pd.DataFrame(np.arange(4.0).reshape(4, 1), index=[np.arange(4), np.arange(4) % 2])
mp = pytest.MonkeyPatch()
mp.setattr(reshape_lib, "_Unstacker", Mock)
mp.setattr(pd, "concat", lambda *a, **k: "mocked concat")
mp.setattr(pd, "not_in_pandas", 1, raising=False)
try:
    df.unstack()
    print("pandas did not see the mock")
except RuntimeError as e:
    print(e)
print(pd.concat([df]), pd.not_in_pandas)
mp.undo()
print(df.unstack().to_string())
print(pd.concat([df, df]).shape, hasattr(pd, "not_in_pandas"))
print(pd.DataFrame({"a": [1, 2]}).stack().to_string())
'''


def test_monkeypatch_of_pandas_modules_reaches_pandas(tmp_path):
    # pandas' own code reads what a test patches into a pandas module (the
    # unpatched unstacker of frame/test_stack_unstack.py allocated 2**32
    # cells), and undoing the patch brings pandas' own values back
    out = _same_as_pandas(tmp_path, MONKEYPATCH)
    assert "mocked unstacker" in out and "mocked concat 1" in out
    assert "(8, 1) False" in out


DIVISION = r'''
import numpy as np
import pandas as pd
p = pd.Series([-2, -1, 0, 1, 2, 5], name="x")
z = p * 0
df = pd.DataFrame({"a": p, "b": p.astype(float), "c": p % 2 == 0})
cases = {
 "s//0": lambda: p // 0, "s%0": lambda: p % 0, "s//z": lambda: p // z, "s%z": lambda: p % z,
 "s.floordiv(z)": lambda: p.floordiv(z), "s.mod(0)": lambda: p.mod(0), "s.rfloordiv(3)": lambda: p.rfloordiv(3),
 "3//s": lambda: 3 // p, "3%s": lambda: 3 % p, "divmod(s,0)": lambda: divmod(p, 0), "divmod(s,z)": lambda: divmod(p, z),
 "s.divmod(2)": lambda: p.divmod(2), "s//np0": lambda: p // np.array(0), "s//zeros": lambda: p // np.zeros(6, dtype="i8"),
 "np.floor_divide": lambda: np.floor_divide(p, 0), "np.remainder": lambda: np.remainder(p, z),
 "s//2": lambda: p // 2, "s%3": lambda: p % 3, "s//s": lambda: p // p, "s//False": lambda: p // False,
 "df//0": lambda: df[["a", "b"]] // 0, "df%df": lambda: df[["a"]] % df[["a"]], "df//s": lambda: df[["a", "b"]].floordiv(p, axis=0),
 "idx//0": lambda: pd.Index(p) // 0, "s//f0": lambda: p // 0.0,
}
for k, f in cases.items():
    try:
        r = f()
    except Exception as e:
        print(k, type(e).__name__, e); continue
    if isinstance(r, tuple):
        print(k, [x.to_dict() for x in r])
    else:
        print(k, r.to_dict() if hasattr(r, "to_dict") else list(r), getattr(r, "dtypes", None) if isinstance(r, pd.DataFrame) else r.dtype)
'''


def test_integer_division_by_zero_as_pandas(tmp_path):
    # zambezi gives null for an integer // or % by zero; pandas gives inf,
    # -inf or NaN (float64), and numpy's 0 in its flex methods with a
    # Series: the accelerator must give pandas' values
    out = _same_as_pandas(tmp_path, DIVISION)
    assert "s//0 {0: -inf, 1: -inf, 2: nan, 3: inf" in out
    assert "s//2 {0: -1, 1: -1, 2: 0, 3: 0, 4: 1, 5: 2} int64" in out


NAT = r'''
import numpy as np
import pandas as pd
s = pd.Series([1, 2, 3], name="n")
f = pd.Series([1.5, np.nan, 3.0])
for other in (np.timedelta64("NaT", "ns"), np.timedelta64("NaT", "D"),
              np.datetime64("NaT", "ns"), pd.NaT):
    for what, call in (("+", lambda a: a + other), ("r-", lambda a: other - a),
                       ("*", lambda a: a * other), ("==", lambda a: a == other),
                       ("!=", lambda a: a != other)):
        for x in (s, f):
            try:
                print(repr(other), what, x.dtype, call(x).tolist())
            except TypeError as e:
                print(repr(other), what, x.dtype, "TypeError")
'''


def test_numbers_and_nat_as_pandas(tmp_path):
    # zambezi took a NaT next to a number column for a missing number (an
    # all-missing result); pandas raises, or gives timedeltas
    out = _same_as_pandas(tmp_path, NAT)
    assert "np.datetime64('NaT','ns') + int64 TypeError" in out
    assert "NaT == int64 [False, False, False]" in out


def test_zambezi_refuses_nat_next_to_numbers():
    p = pd.Series([1, 2, 3])
    z = zb.Series(p)
    for other in (np.timedelta64("NaT", "ns"), np.datetime64("NaT", "ns"), pd.NaT):
        with pytest.raises(TypeError):
            p + other
        with pytest.raises(TypeError, match="NaT next to a int64 column"):
            z + other
        with pytest.raises(TypeError, match="NaT next to a int64 column"):
            other - z
        pd.testing.assert_series_equal((z == other).to_pandas(), p == other)
        pd.testing.assert_series_equal((z != other).to_pandas(), p != other)


CATEGORICAL_DTYPE = r'''
import numpy as np
import pandas as pd
import pandas._testing as tm
dt = pd.CategoricalDtype(pd.Index([1, 2, 3], dtype="Int64"))
print(type(dt.categories), isinstance(dt, pd.CategoricalDtype), dt == pd.CategoricalDtype([1, 2, 3]))
srs = pd.Series([1, 2, 3], dtype=dt)
srs.loc[3] = np.nan
print(srs)
tm.assert_series_equal(srs, pd.Series([1, 2, 3, np.nan], dtype=pd.CategoricalDtype(pd.Index([1, 2, 3], dtype="Int64"))))
c = pd.CategoricalDtype(categories=pd.Index(["b", "a"]), ordered=True)
s = pd.Series(["a", "b", "a"]).astype(c)
print(s.sort_values().tolist(), s.cat.categories.tolist(), type(c).__name__, isinstance(s.dtype, pd.CategoricalDtype))
print(pd.CategoricalDtype.is_dtype(c), isinstance(c, pd.api.types.CategoricalDtype))
'''


def test_categorical_dtype_gets_pandas_objects(tmp_path):
    # pd.CategoricalDtype(pd.Index(...)) kept the proxy Index as its
    # categories, which pandas' own checks then refused
    # (indexing/test_loc.py::test_loc_set_nan_in_categorical_series)
    out = _same_as_pandas(tmp_path, CATEGORICAL_DTYPE)
    assert "Categories (3, Int64): [1, 2, 3]" in out


INDEX_LABELS = r'''
import numpy as np
import pandas as pd
df = pd.DataFrame({"a": ["x", np.nan, "y", "x"], "b": ["p", "q", np.nan, "q"],
                   "f": [1.5, np.nan, 2.5, 1.5], "v": [1, 2, 3, 4]})
mi = df.set_index(["a", "b"])
print(repr(mi.index[1]), repr(mi.index[2]), repr(mi.index.levels[0]), mi.index.codes)
print(repr(mi.index.names), mi.index.nlevels, mi.index.is_unique)
for key in ("a", "f"):
    s = df.set_index(key)
    print(repr(s.index[1]), repr(s.index[-3]), s.index.hasnans, s.index.dtype)
'''


def test_index_labels_and_levels_as_pandas(tmp_path):
    # zambezi's index gives None for a missing label and keeps it in a
    # MultiIndex's levels; pandas gives NaN and leaves it out (the labels
    # read by frame/test_stack_unstack.py::test_unstack_nan_index_repeats)
    out = _same_as_pandas(tmp_path, INDEX_LABELS)
    assert "(nan, 'q')" in out and "None" not in out


DIR = r'''
import pandas as pd
df = pd.DataFrame({"a": [1, 2], "foo bar": [1.0, 2.0], "when": pd.to_datetime(["2024-01-01", None])})
for obj in (df, df["a"], df["when"], df["a"].astype(str), df.set_index("foo bar").index):
    names = set(dir(obj))
    print(type(obj).__name__, [n for n in ("a", "foo bar", "when", "str", "dt", "cat") if n in names])
'''


def test_dir_as_pandas(tmp_path):
    # tab completion: column names in, the accessors the dtype lacks out
    out = _same_as_pandas(tmp_path, DIR)
    assert "DataFrame ['a', 'when']" in out


LOGICAL_UFUNCS = r'''
from datetime import date, datetime, time, timedelta
import numpy as np
import pandas as pd
left = pd.Series([True, False])
right = pd.Series(pd.to_datetime(["2016-01-01", "2016-01-02"]))
ints = pd.Series([0, 3])
for func in (np.logical_and, np.logical_or, np.logical_xor):
    for a, b in ((left, right), (right, left), (left, pd.Timestamp("2016-01-01")),
                 (left, np.timedelta64(1, "D")), (left, date(2016, 1, 1)), (left, time(1)),
                 (left, ints), (ints, 2), (left, True), (left, np.array([1.5, 0.0]))):
        try:
            print(func.__name__, func(a, b).tolist())
        except TypeError as e:
            print(func.__name__, "TypeError", str(e)[:60])
print(np.logical_not(left).tolist(), np.logical_not(ints).tolist())
'''


def test_logical_ufuncs_refuse_datetimelike_as_pandas(tmp_path):
    # pandas 3.1 raises TypeError for np.logical_and/or/xor with a
    # datetime-like operand; zambezi's numpy fallback computed them
    out = _same_as_pandas(tmp_path, LOGICAL_UFUNCS)
    assert "logical_or TypeError Object of type timedelta64 cannot perform" in out
    assert "logical_and [False, True]" in out


@pytest.mark.parametrize("op", ["__and__", "__or__", "__xor__", "__rand__", "__ror__",
                                "__rxor__"])
def test_logical_ops_result_dtype_as_pandas(op):
    # bitwise integers only when both sides are integers; an integer and a
    # bool give bools, as pandas (it gave int64)
    i, b = pd.Series([0, 1, 2, 3]), pd.Series([True, False, True, False])
    for x, y in ((i, False), (i, True), (i, 1), (b, 0), (b, 1), (b, 3), (i, b), (b, i),
                 (i, pd.Series([3, 0, 1, 2])), (b, b), (i, np.array([True, False, True, True]))):
        if op.startswith("__r") and isinstance(y, (pd.Series, np.ndarray)):
            continue
        zy = zb.Series(y) if isinstance(y, pd.Series) else y
        got = getattr(zb.Series(x), op)(zy).to_pandas()
        pd.testing.assert_series_equal(got, getattr(x, op)(y))


@pytest.mark.parametrize("op", ["__and__", "__or__", "__xor__"])
def test_logical_ops_of_integers_and_bools_with_missing_values_as_pandas(op):
    # pandas holds bools with missing values as its nullable boolean: the
    # integers count by their truth and three-valued logic applies (4 & True
    # is True there, where numpy's bools work bitwise: False)
    i = pd.Series([4, -3, 1, 2, 0, 0])
    b = pd.Series(pd.array([True, True, None, False, None, False], dtype="boolean"))
    zi, zbool = zb.from_pandas(i.to_frame("x"))["x"], zb.from_pandas(b.to_frame("x"))["x"]
    for x, y, zx, zy in ((i, b, zi, zbool), (b, i, zbool, zi),
                         (b, i.to_numpy(), zbool, i.to_numpy())):
        pd.testing.assert_series_equal(getattr(zx, op)(zy).to_pandas(), getattr(x, op)(y),
                                       check_names=False)


def test_logical_ops_of_bools_with_missing_values_and_a_scalar_as_pandas():
    # pandas' nullable boolean takes a bool or pd.NA, and refuses numbers
    p = pd.Series(pd.array([True, None, False], dtype="boolean"))
    z = zb.from_pandas(p.to_frame("x"))["x"]
    for v in (True, False, pd.NA):
        for op in ("__and__", "__or__", "__xor__", "__rand__", "__ror__", "__rxor__"):
            # a result without missing values is numpy's bool in zambezi
            pd.testing.assert_series_equal(getattr(z, op)(v).to_pandas(), getattr(p, op)(v),
                                           check_names=False, check_dtype=False)
    for v in (4, 0, 1.5):
        with pytest.raises(TypeError, match="should be pandas.NA or a bool"):
            p & v
        with pytest.raises(TypeError, match="should be pandas.NA or a bool"):
            z & v


def test_elements_of_split_lists_are_objects_as_pandas(tmp_path):
    # .str[i], .str.get(i) and .str.join of the lists str.split makes are
    # an object column in pandas (zambezi keeps str): the dtype, and what
    # the later calls see, are pandas'; to_numpy of text gives NaN
    out = _same_as_pandas(tmp_path, r'''
import pandas as pd

s = pd.Series(["a b", "c d e", None, "f"])
parts = s.str.split()
for r in [parts.str[0], parts.str.get(1), parts.str[-1], parts.str.join("-"),
          parts.str[0].str.upper(), s.str.rsplit(n=1).str[-1], parts.str[0:1],
          parts.str.len()]:
    print(repr(r), r.dtype)
print(repr(s.to_numpy()), repr(parts.to_numpy()))
print(repr(pd.DataFrame({"s": s, "x": [1.0, 2.0, None, 4.0]}).to_numpy()))
''')
    assert "dtype: object object" in out


def test_dates_of_missing_timestamps_are_nat_as_pandas(tmp_path):
    # pandas' .dt.date holds NaT for a missing timestamp (zambezi's dates:
    # None); without missing values zambezi serves it
    out = _same_as_pandas(tmp_path, r'''
import pandas as pd

t = pd.Series(pd.to_datetime(["2020-01-01 10:00", None, "2021-03-04 00:00"]))
d = t.dt.date
print(repr(d), repr(d.to_numpy()), d.tolist(), d.isna().tolist())
print(repr(t.dropna().dt.date), t.dropna().dt.date.tolist())
df = pd.DataFrame({"t": t, "v": [1, 2, 3]})
df["d"] = df.t.dt.date
print(df.groupby("d", dropna=False).v.sum())
''')
    assert "NaT" in out
