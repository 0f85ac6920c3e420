"""zambezi.pandas on the cases behind failures of pandas' own tests
(groupby/test_groupby.py, window/): each script runs under plain pandas and
under the accelerator with every frame tried on zambezi
(ZAMBEZI_PANDAS_MIN_ROWS=0), and prints the same bytes -- results, the
dtypes of their labels, and the exceptions pandas raises.
"""

import pandas as pd

import zambezi as zb

from conftest import same_under_accelerator as _same_as_pandas


LABELS = r'''
import numpy as np
import pandas as pd
df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "k": [1, 1, 2]})
print(repr(df[[]].columns), df[[]].shape)
print(repr(df.set_index("k")[[]].columns))
print(repr(df.select_dtypes("datetime").columns))
print(repr(df.groupby("k")[[]].sum().columns))
o = pd.DataFrame(np.arange(6.0).reshape(3, 2), columns=pd.Index(["A", "B"], dtype=object))
print(repr(o.groupby([1, 1, 2]).sum().columns), repr(o.sum().index), repr((o + 1).columns))
m = pd.DataFrame(np.arange(6.0).reshape(3, 2), columns=pd.Index(["A", 1], dtype=object))
print(repr((m * 2).columns), repr(m.groupby([1, 1, 2]).mean().columns))
'''


def test_column_labels_keep_pandas_dtype(tmp_path):
    out = _same_as_pandas(tmp_path, LABELS)
    assert "dtype='object'" in out and "RangeIndex" not in out


def test_no_column_frame_to_pandas_has_pandas_empty_labels():
    p = pd.DataFrame({"a": [1, 2], "b": [3.0, 4.0]})
    z = zb.DataFrame(p)
    for got, exp in ((z[[]], p[[]]), (z.select_dtypes("datetime"), p.select_dtypes("datetime"))):
        got = got.to_pandas()
        pd.testing.assert_index_equal(got.columns, exp.columns, exact=True)
        assert got.shape == exp.shape


INDEXERS = r'''
import numpy as np
import pandas as pd
from pandas.api.indexers import BaseIndexer, FixedForwardWindowIndexer, VariableOffsetWindowIndexer
idx = pd.date_range("2020-01-01", periods=10, freq="D")
df = pd.DataFrame({"v": np.arange(10.0)}, index=idx)
ind = VariableOffsetWindowIndexer(index=df.index, offset=pd.offsets.BDay(1))
print(df.rolling(ind).sum())

class Custom(BaseIndexer):
    def get_window_bounds(self, num_values, min_periods, center, closed, step):
        ends = np.arange(1, num_values + 1, dtype=np.int64)
        starts = np.where(np.asarray(self.use_expanding), 0, ends - self.window_size)
        return np.maximum(starts, 0).astype(np.int64), ends

flags = pd.Series([True, False] * 5)
print(df.reset_index(drop=True).rolling(Custom(window_size=2, use_expanding=flags)).sum())
print(df.v.rolling(FixedForwardWindowIndexer(window_size=3), min_periods=1).mean().tolist())
print(isinstance(ind, BaseIndexer), type(ind).__name__, type(ind.index).__module__)
'''


def test_window_indexers_get_pandas_objects(tmp_path):
    # VariableOffsetWindowIndexer checks its index is a DatetimeIndex; a
    # BaseIndexer subclass keeps what it was given for get_window_bounds
    out = _same_as_pandas(tmp_path, INDEXERS)
    assert "True VariableOffsetWindowIndexer pandas" in out


NUISANCE = r'''
import numpy as np
import pandas as pd
rng = np.random.default_rng(3)
df = pd.DataFrame({"A": list("abcabcab"), "B": list("xxyyzzxy"), "C": rng.normal(size=8),
                   "D": np.arange(8)})
g = df.groupby("A")
for call in ("mean()", "median()", "std()", "var()", "sem()", "prod()", "agg('mean')",
             "agg(['mean', 'sum'])", "aggregate('var')", "quantile(0.5)"):
    try:
        res = eval("g." + call)
        print(call, "->", res.round(9).to_string())
    except Exception as e:
        print(call, "->", type(e).__name__, str(e)[:60])
print(g.mean(numeric_only=True).round(9).to_string())
print(g[["C", "D"]].mean().round(9).to_string())
print(g.sum().to_string(), g.min().to_string())
t = df.assign(T=pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(8), "D"))[["A", "T", "D"]]
print(t.groupby("A").mean().to_string())
'''


def test_groupby_reductions_without_numeric_only_raise_as_pandas(tmp_path):
    out = _same_as_pandas(tmp_path, NUISANCE)
    assert out.count("TypeError") >= 6


SERIES_KEYS = r'''
import numpy as np
import pandas as pd
df = pd.DataFrame({"A": list("abcabcab"), "B": list("xxyyzzxy"), "C": np.arange(8.0)})
print(df.groupby([df["A"], df["B"]]).mean().to_string())
print(df.groupby(df["A"]).mean(numeric_only=True).to_string())
try:
    df.groupby(df["A"]).mean()
except TypeError as e:
    print("TypeError", e)
'''


def test_groupby_by_the_frames_own_columns_as_series(tmp_path):
    # the key Series are the frame's columns: pandas leaves them out of the
    # values, so mean has nothing to refuse
    out = _same_as_pandas(tmp_path, SERIES_KEYS)
    assert out.count("TypeError") == 1


PANDAS_FUNCTIONS = r'''
import numpy as np
import pandas as pd
rng = np.random.default_rng(5)
df = pd.DataFrame(rng.normal(size=(12, 3)), columns=list("ABC"))
g = df.groupby(np.arange(12) % 3)
print(g.apply(pd.DataFrame.quantile, 0.8).round(9).to_string())
print(df.apply(pd.Series.mean).round(9).to_string())
print(type(g.apply(pd.DataFrame.quantile, 0.8)).__name__)
'''


def test_pandas_functions_passed_to_pandas_are_its_own(tmp_path):
    # pd.DataFrame.quantile given to groupby.apply: pandas gets its own
    # function back, whose results are real frames (not object cells)
    out = _same_as_pandas(tmp_path, PANDAS_FUNCTIONS)
    assert out.rstrip().endswith("DataFrame")


RESAMPLE_FREQ = r'''
from datetime import datetime
import numpy as np
import pandas as pd
idx = [datetime(1975, 1, i) for i in range(1, 6)] + [datetime(1975, 1, 3, 6, 0)]
s = pd.Series(np.arange(1.0, 7.0), index=idx).sort_index()
r = s.resample("D").max()
print(repr(r.index.freq), r.to_string())
x = r.rolling(window=1).max()
print(repr(x.index.freq), x.to_string())
df = pd.DataFrame({"v": np.arange(10.0)}, index=pd.date_range("2024-01-01", periods=10, freq="6h"))
m = df.resample("12h").mean()
print(repr(m.index.freq), m.to_string())
'''


def test_resample_results_keep_pandas_freq(tmp_path):
    out = _same_as_pandas(tmp_path, RESAMPLE_FREQ)
    assert "<Day>" in out and "<12 * Hours>" in out
