"""One comparison of a zambezi result with pandas' for the side-by-side
tests: frames and Series with pandas' asserters (index and column kinds
and the freq attribute aside; dtypes too unless check_dtype), tuples
element by element, numpy arrays exactly, floats within rtol, other
scalars by value (NaN equal to NaN)."""

import numpy as np
import pandas as pd


def same(got, want, check_dtype=True, rtol=None):
    """Assert that zambezi's got equals pandas' want (rtol: a relative
    tolerance for floats; by default pandas' asserters' own rules)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w, check_dtype, rtol)
        return
    got = got.to_pandas() if hasattr(got, "to_pandas") else got
    tol = {} if rtol is None else {"rtol": rtol}
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got, want, check_dtype=check_dtype,
                                      check_index_type=False, check_column_type=False,
                                      check_freq=False, **tol)
    elif isinstance(want, pd.Series):
        pd.testing.assert_series_equal(got, want, check_dtype=check_dtype,
                                       check_index_type=False, check_freq=False, **tol)
    elif isinstance(want, np.ndarray):
        np.testing.assert_array_equal(np.asarray(got), want)
    elif isinstance(want, float) and isinstance(got, float):
        np.testing.assert_allclose(got, want, rtol=1e-7 if rtol is None else rtol)
    else:
        assert got == want or (got != got and want != want), (got, want)
