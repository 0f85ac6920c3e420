"""ZAMBEZI_PANDAS_DEBUG=1: each answer zambezi gives is compared with the
one pandas gives for the same call, and a difference raises (the tool for
finding zambezi's own bugs).  Floating-point results are compared to 1e-9
relative: zambezi adds in parallel blocks."""

import numpy as np

from zambezi.pandas._convertible import real as _real


def compare(label, got, expected):
    """Raise AssertionError naming label when got (a pandas object or
    value, zambezi's answer) differs from expected (pandas')."""
    pd = _real.pd
    try:
        if isinstance(expected, pd.DataFrame):
            pd.testing.assert_frame_equal(got, expected, rtol=1e-9, atol=1e-12)
        elif isinstance(expected, pd.Series):
            pd.testing.assert_series_equal(got, expected, rtol=1e-9, atol=1e-12)
        elif isinstance(expected, pd.Index):
            pd.testing.assert_index_equal(got, expected, exact=True)
        elif isinstance(expected, np.ndarray):
            if got.dtype != expected.dtype:
                raise AssertionError(f"dtype {got.dtype} != {expected.dtype}")
            if expected.dtype.kind == "f":
                np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
            else:
                np.testing.assert_array_equal(got, expected)
        elif expected is None or isinstance(expected, (int, float, str, bool, np.generic)):
            if type(got) is not type(expected):
                raise AssertionError(f"{got!r} is a {type(got).__name__}, pandas gives a "
                                     f"{type(expected).__name__}")
            same = got == expected or (pd.isna(got) and pd.isna(expected))
            if not same and isinstance(expected, (float, np.floating)):
                same = bool(np.isclose(got, expected, rtol=1e-9, atol=1e-12))
            if not same:
                raise AssertionError(f"{got!r} != {expected!r}")
    except AssertionError as e:
        raise AssertionError(f"zambezi.pandas debug: {label} differs from pandas:\n{e}") \
            from None
