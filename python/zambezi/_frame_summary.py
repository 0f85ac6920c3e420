"""Summaries of a DataFrame: describe, info, memory_usage, corr and cov
(the ``FrameSummary`` mixin), and the pieces Series' describe, corr and cov
share with them (``describe_column``, ``pair_statistic``).

pandas' rules are followed: which columns ``describe`` picks (numbers and
timestamps by default, every column when there are none or with
include="all"), the rows it shows and their order, the percentile labels
("25%", "12.3%"), the layout ``info`` prints, pairwise complete
observations in ``corr`` and ``cov``.  Every statistic is an engine
reduction (count, mean, std, min, max, quantile, value_counts); the
correlation matrices are numpy on the columns converted once to float64
(a frame on a GPU is copied to the host for them), and Spearman's ranks
come from the engine's sort with ties averaged by numpy, never a loop
over rows.

Differences from pandas, on purpose:

- ``describe`` gives pandas' float64 columns for numbers (``Float64`` for
  pandas' nullable integers); where pandas gives an object column mixing
  counts with values (strings, categories, bools, dates, timestamps),
  zambezi has no object dtype: the column is a string column holding each
  value as pandas prints it ("3", "x", "2024-01-02 12:00:00").
- ``memory_usage`` and ``info`` count the bytes the engine holds (values,
  validity bitmaps, string bytes, categories), which is exact: there is no
  "+" and deep=True changes nothing.  A RangeIndex costs 0 bytes (pandas
  counts the Python range object, 132 bytes).
- ``info`` shows zambezi's dtype names (``string``, ``timestamp[us]``), as
  ``df.dtypes`` does.
- ``cov(ddof=...)`` applies ddof also when values are missing (pandas uses
  ddof only for data without missing values, and 1 otherwise).
- ``corr`` and ``cov`` raise DTypeError for a column that is not a number
  or bool unless ``numeric_only=True`` (pandas raises ValueError or
  TypeError); method="kendall" and callables are not supported.
"""

import sys

import numpy as np

from zambezi import _convert, _core, _dtypes, _labels, _stats
from zambezi import index as _ix
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

_NUMBERS = _stats._NUMERIC - {"bool"}
_DEFAULT_PERCENTILES = (0.25, 0.5, 0.75)
# pandas' display.max_info_columns and display.max_info_rows
_MAX_INFO_COLUMNS = 100
_MAX_INFO_ROWS = 1690785


def _host(col):
    return col if col.device == "cpu" else col.to_device("cpu")


def _string_index(labels):
    return _ix.Index._from_columns([_core.column_from_sequence(list(labels), dtype="string")],
                                   [None])


# --------------------------------------------------------------------------
# describe
# --------------------------------------------------------------------------

def refine_percentiles(percentiles):
    """The percentiles describe shows: pandas' default (0.25, 0.5, 0.75),
    or the ones given, checked and sorted."""
    if percentiles is None:
        return np.array(_DEFAULT_PERCENTILES)
    try:
        p = np.atleast_1d(np.asarray(percentiles, dtype=np.float64))
    except (TypeError, ValueError):
        raise InvalidValueError(
            f"describe: percentiles must be numbers in [0, 1], not {percentiles!r}") from None
    if p.ndim != 1 or not np.all((p >= 0) & (p <= 1)):
        raise InvalidValueError(
            f"describe: percentiles should all be in the interval [0, 1], got {percentiles!r}")
    unique = np.unique(p)
    if len(unique) < len(p):
        raise InvalidValueError(f"describe: percentiles cannot contain duplicates: "
                                f"{percentiles!r}")
    return unique


def _precision(array):
    to_begin = array[0] if array[0] > 0 else None
    to_end = 100 - array[-1] if array[-1] < 100 else None
    diff = np.abs(np.ediff1d(array, to_begin=to_begin, to_end=to_end))
    return max(1, int(-np.floor(np.log10(np.min(diff)))))


def format_percentiles(percentiles):
    """pandas' labels of percentiles: "25%", "12.3%" (as few decimals as
    keep them apart, never rounded to 0% or 100%)."""
    if len(percentiles) == 0:
        return []
    pct = 100 * np.asarray(percentiles, dtype=np.float64)
    prec = _precision(pct)
    rounded = pct.round(prec).astype(int)
    is_int = np.isclose(rounded, pct)
    if np.all(is_int):
        return [f"{v}%" for v in rounded]
    prec = _precision(np.unique(pct))
    out = []
    for v, whole in zip(pct, is_int):
        out.append(f"{int(v.round())}%" if whole else f"{v.round(prec)}%")
    return out


def _kind(col):
    """How describe summarises a column: 'numeric', 'timestamp' or
    'categorical' (strings, categories, bools, dates)."""
    dt = col.dtype
    if dt in _NUMBERS:
        return "numeric"
    if dt.startswith("timestamp"):
        return "timestamp"
    return "categorical"


def _float(v):
    return None if v is None else float(v)


def _describe_numeric(col, ps, labels):
    quantiles = _core.quantile(col, [float(q) for q in ps]) if len(ps) else []
    names = ["count", "mean", "std", "min", *labels, "max"]
    values = [col.reduce("count"), col.reduce("mean"), _core.stat(col, "std", 1),
              _stats.min_max(col, False), *quantiles, _stats.min_max(col, True)]
    return names, [_float(v) for v in values], False


def timestamp_texts(values, col):
    """Timestamps given as integers in col's unit (None for missing), as
    pandas prints them: "2024-01-02 12:00:00", a fraction only when there
    is one (6 digits, 9 for nanoseconds), the zone's offset when the
    column has a zone."""
    mask = np.array([v is None for v in values], dtype=bool)
    ints = np.array([0 if v is None else int(v) for v in values], dtype=np.int64)
    stamps = _core.column_from_buffer(ints, mask=mask, unit=col.unit, tz=col.timezone)
    per = _dtypes.PER_SECOND[col.unit]
    out = []
    for v, dt in zip(values, stamps.to_pylist()):
        if v is None:
            out.append(None)
            continue
        nanos = (int(v) % per) * (10**9 // per)
        text = dt.replace(microsecond=0).isoformat(sep=" ")
        frac = f".{nanos:09d}" if nanos % 1000 else f".{nanos // 1000:06d}" if nanos else ""
        out.append(text[:19] + frac + text[19:])
    return out


def _describe_timestamp(col, ps, labels):
    # mean and percentiles as pandas computes them: in float64 on the
    # integer values, cut toward zero to a timestamp
    ints = _core.cast(col, "int64")
    count = ints.length - ints.null_count
    quantiles = _core.quantile(ints, [float(q) for q in ps]) if len(ps) else []
    stamps = [ints.reduce("mean"), _stats.min_max(ints, False), *quantiles,
              _stats.min_max(ints, True)]
    stamps = [None if v is None else int(v) for v in stamps]
    names = ["count", "mean", "min", *labels, "max"]
    return names, [str(count)] + timestamp_texts(stamps, col), True


def _top(col):
    """(distinct values, top value, its count): the most frequent value,
    ties to the first in pandas' order (categories: category order; other
    columns: first appearance)."""
    if col.dtype == "category":
        host = _host(col)
        codes = _convert.values_numpy(host)
        mask = _convert.null_mask(host)
        if mask is not None:
            codes = codes[~mask]
        counts = np.bincount(codes.astype(np.int64), minlength=host.dictionary.length)
        unique = int(np.count_nonzero(counts))
        if unique == 0:
            return 0, None, None
        k = int(counts.argmax())
        return unique, host.dictionary.slice(k, 1).to_pylist()[0], int(counts[k])
    values, counts = _core.value_counts(col, True, False, True, False)
    if values.length == 0:
        return 0, None, None
    return values.length, values.slice(0, 1).to_pylist()[0], counts.slice(0, 1).to_pylist()[0]


def _describe_categorical(col, ps, labels):
    unique, top, freq = _top(col)
    count = col.length - col.null_count
    values = [str(count), str(unique), None if top is None else str(top),
              None if freq is None else str(freq)]
    return ["count", "unique", "top", "freq"], values, True


_DESCRIBERS = {"numeric": _describe_numeric, "timestamp": _describe_timestamp,
               "categorical": _describe_categorical}


def describe_column(col, ps, labels):
    """(row names, values, is_text) describing one column (see
    _frame_summary's docstring): floats for numbers, str values else."""
    return _DESCRIBERS[_kind(col)](col, ps, labels)


def described_column(names, values, is_text, rows):
    """The engine column of one described column over all rows (None where
    it has no such row)."""
    lookup = dict(zip(names, values))
    return _core.column_from_sequence([lookup.get(r) for r in rows],
                                      dtype="string" if is_text else "float64")


def _row_order(parts):
    # pandas' reorder_columns: the shortest description's names first
    names = []
    for part_names in sorted((p[0] for p in parts), key=len):
        for name in part_names:
            if name not in names:
                names.append(name)
    return names


def _describe_selection(df, include, exclude):
    if include is None and exclude is None:
        data = df.select_dtypes(include=["number", "datetime"])
        return data if data._table.num_columns else df
    if isinstance(include, str) and include == "all":
        if exclude is not None:
            raise InvalidValueError("describe: exclude must be None when include is 'all'")
        return df
    data = df.select_dtypes(include=include, exclude=exclude)
    if data._table.num_columns == 0:
        raise InvalidValueError(
            "describe: no columns match the specified include or exclude data types")
    return data


# --------------------------------------------------------------------------
# info and memory
# --------------------------------------------------------------------------

def _sizeof_fmt(num):
    for unit in ("bytes", "KB", "MB", "GB", "TB"):
        if num < 1024.0:
            return f"{num:3.1f} {unit}"
        num /= 1024.0
    return f"{num:3.1f} PB"


def index_summary(index, name=None):
    """pandas' Index._summary: "RangeIndex: 3 entries, 0 to 2"."""
    n = len(index)
    head = type(index).__name__ if name is None else name
    if n == 0:
        return f"{head}: 0 entries"
    return f"{head}: {n} entries, {index._label_at(0)} to {index._label_at(n - 1)}"


def _table_lines(headers, rows):
    """pandas' verbose info table: columns left-justified to their widest
    cell, two spaces apart, a dashed line under the headers."""
    widths = [max([len(h)] + [len(r[j]) for r in rows]) for j, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)),
             "  ".join(("-" * len(h)).ljust(w) for h, w in zip(headers, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    return lines


# --------------------------------------------------------------------------
# corr and cov
# --------------------------------------------------------------------------

def _float_values(col):
    """A float64 numpy array of a numeric or bool column, NaN where missing."""
    col = _host(col)
    if col.dtype != "float64":
        col = _core.cast(col, "float64")
    arr = np.array(_convert.values_numpy(col), dtype=np.float64)
    mask = _convert.null_mask(col)
    if mask is not None:
        arr[mask] = np.nan
    return arr


def average_ranks(x):
    """1-based ranks of the values of a float64 array without NaN, ties
    given their average rank (pandas' method="average"): the engine sorts,
    numpy averages the runs of equal values."""
    n = len(x)
    if n == 0:
        return np.empty(0, dtype=np.float64)
    col = _core.column_from_buffer(np.ascontiguousarray(x, dtype=np.float64))
    order = _convert.values_numpy(_core.sort_indices(col, True, False)).astype(np.int64)
    ordered = x[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], n]
    run_rank = (starts + ends + 1) / 2.0  # mean of start+1 .. end
    ranks = np.empty(n, dtype=np.float64)
    ranks[order] = np.repeat(run_rank, ends - starts)
    return ranks


def _pearson(x, y):
    """Pearson correlation of two float64 arrays without NaN (NaN when one
    is constant), as pandas' nancorr: means first, then the sums of
    squared deviations."""
    dx, dy = x - x.mean(), y - y.mean()
    divisor = np.sqrt(np.dot(dx, dx) * np.dot(dy, dy))
    return float(np.dot(dx, dy) / divisor) if divisor != 0 else np.nan


def _covariance(x, y, ddof):
    n = len(x)
    if n - ddof <= 0:
        return np.nan
    return float(np.dot(x - x.mean(), y - y.mean()) / (n - ddof))


def series_pair_statistic(x, y, what, min_periods, ddof=1):
    """Series.corr / Series.cov of two float64 arrays as pandas computes
    them (nanops), bit for bit: the rows where both are present (an
    infinity counts as present), NaN below min_periods; Pearson on the
    centred values each scaled by its largest magnitude, clipped to [-1,
    1]; the covariance by numpy's cov.  A numpy float64, or pandas' float
    NaN where it gives up early (too few rows, a constant side)."""
    valid = ~(np.isnan(x) | np.isnan(y))
    if not valid.all():
        x, y = x[valid], y[valid]
    if len(x) < max(min_periods, 1):
        return np.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        if what == "cov":
            return np.float64(np.cov(x, y, ddof=ddof)[0, 1])
        if what == "spearman":  # scipy's spearmanr: numpy's corrcoef of the ranks
            if len(x) < 2 or (x == x[0]).all() or (y == y[0]).all():
                return np.nan
            ranks = np.column_stack((average_ranks(x), average_ranks(y)))
            return np.corrcoef(ranks, rowvar=False)[1, 0]
        if len(x) < 2:
            return np.nan
        dx, dy = x - x.mean(), y - y.mean()
        sx, sy = np.max(np.abs(dx)), np.max(np.abs(dy))
        if sx == 0 or sy == 0:
            return np.nan
        dx, dy = dx / sx, dy / sy
        m = len(dx) - 1
        r = np.dot(dx, dy) / m / np.sqrt(np.dot(dx, dx) / m) / np.sqrt(np.dot(dy, dy) / m)
        return np.float64(np.clip(r, -1.0, 1.0))


def pair_statistic(x, y, what, min_periods, ddof=1):
    """corr ('pearson' / 'spearman') or 'cov' of two float64 arrays over the
    rows where both are present; NaN below min_periods observations."""
    valid = ~(np.isnan(x) | np.isnan(y))
    if not valid.all():
        x, y = x[valid], y[valid]
    if len(x) < max(min_periods, 1):
        return np.nan
    if what == "cov":
        return _covariance(x, y, ddof)
    if what == "spearman":
        x, y = average_ranks(x), average_ranks(y)
    return _pearson(x, y)


def check_method(method):
    if method in ("pearson", "spearman"):
        return method
    if method == "kendall" or callable(method):
        raise UnsupportedError(
            f"corr: method={method!r} is not supported yet; use 'pearson' or 'spearman'")
    raise InvalidValueError(f"corr: method must be 'pearson' or 'spearman', not {method!r}")


def _engine_matrix(cols, cov, min_periods, ddof):
    """pandas' nancorr (cov: its covariances) of host float64 engine
    columns, in the engine: Welford's steps per pair of columns over the
    rows where both are finite, pairs in parallel."""
    k = len(cols)
    t = _core.table_from_columns(cols, [f"c{i}" for i in range(k)])
    res = _core.corr_matrix(t, max(int(min_periods), 0), int(ddof), cov)
    return np.array(res, dtype=np.float64).reshape(k, k)


def _matrix(values, what, min_periods, ddof):
    """The k x k matrix of a statistic over pairwise complete rows of the
    columns in values (a list of float64 arrays): Spearman correlations,
    or covariances when no value is missing (pandas' numpy cov)."""
    k = len(values)
    out = np.full((k, k), np.nan)
    if k == 0:
        return out
    if what == "cov":   # the same rows of a (columns x rows) array: numpy's sums
        n = len(values[0])
        if min_periods > n or n - ddof <= 0:
            return out
        return np.cov(np.vstack(values), ddof=ddof).reshape(k, k)
    mat = np.column_stack(values)
    if what == "spearman" and not np.isnan(mat).any():
        values = [average_ranks(v) for v in values]
        what = "pearson"
    for i in range(k):
        for j in range(i, k):
            out[i, j] = out[j, i] = pair_statistic(values[i], values[j], what, min_periods,
                                                   ddof)
    return out


class FrameSummary:
    """describe, info, memory_usage, corr and cov of zambezi.DataFrame (a
    mixin; see the module docstring for where they differ from pandas)."""

    __slots__ = ()

    def describe(self, percentiles=None, include=None, exclude=None):
        """Summary statistics of the columns, a frame indexed by the names
        of the statistics, as pandas' describe.

        Numeric columns (integers, floats) show count, mean, std, min, the
        percentiles (25%, 50%, 75% by default) and max, as float64;
        strings, categories, bools and dates show count, unique, top (the
        most frequent value) and freq; timestamps count, mean, min, the
        percentiles and max.  Which columns: the numeric and timestamp
        (without a zone) columns, or every column when there are none;
        ``include="all"`` every column; otherwise ``include`` / ``exclude``
        as in ``select_dtypes``.  pandas gives object columns for the
        non-numeric summaries; zambezi has no object dtype, so they are
        string columns holding each value as pandas prints it.

        Examples
        --------
        >>> df = zb.DataFrame({"fare": [7.0, 3.5, None, 9.0], "city": ["Maun", "Tete", "Maun", None]})
        >>> df.describe()
                   fare
                float64
        count         3
        mean      6.5
        std       2.78388
        min       3.5
        25%       5.25
        50%       7
        75%       8
        max       9
        <BLANKLINE>
        [8 rows x 1 columns]
        >>> df.describe(include="all")["city"].to_list()
        ['3', '2', 'Maun', '2', None, None, None, None, None, None, None]
        >>> df.describe(percentiles=[0.1])["fare"].index.to_list()
        ['count', 'mean', 'std', 'min', '10%', 'max']
        """
        t = self._table
        if t.num_columns == 0:
            raise InvalidValueError("describe: the DataFrame has no columns")
        data = _describe_selection(self, include, exclude)._table
        ps = refine_percentiles(percentiles)
        labels = format_percentiles(ps)
        parts = [describe_column(data.column(i), ps, labels) for i in range(data.num_columns)]
        rows = _row_order(parts)
        cols = [described_column(*p, rows) for p in parts]
        out = self._constructor._wrap(_core.table_from_columns(cols, data.names),
                                      _string_index(rows))
        return _labels.attach(out, _labels.index_for(self, data.names))

    def memory_usage(self, index=True, deep=False):
        """int64 Series: bytes each column holds (values, validity bitmap,
        string bytes, categories), after an "Index" entry for the row
        labels when index=True.  The sizes are exact, so deep changes
        nothing; a RangeIndex takes 0 bytes (pandas counts 132 for the
        range object).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3], "b": [0.5, None, 2.0], "s": ["x", "yz", None]})
        >>> df.memory_usage()
        Index     0
        a        24
        b        25
        s        36
        dtype: int64
        >>> df.set_index("a").memory_usage(index=True).to_list()
        [24, 25, 36]
        """
        t = self._table
        names = list(t.names)
        sizes = [t.column(i).nbytes for i in range(len(names))]
        if index:
            names.insert(0, "Index")
            sizes.insert(0, self._index.nbytes)
        col = _core.column_from_buffer(np.array(sizes, dtype=np.int64))
        return self._constructor_sliced._from_column(col, None, _string_index(names))

    def info(self, verbose=None, buf=None, max_cols=None, memory_usage=None, show_counts=None):
        """Print a summary of the frame in pandas' layout: the class, the
        index (kind, length, first and last label), one line per column
        with its non-null count and dtype (zambezi's dtype names, as
        ``dtypes`` shows them), the dtypes and the memory the frame holds
        (see ``memory_usage``; exact, so never "+").  Above 100 columns
        (``max_cols``) or ``verbose=False`` the columns are summarised in
        one line; the counts are left out above 1,690,785 rows or with
        ``show_counts=False``.  Writes to buf (default: sys.stdout) and
        returns None.

        Examples
        --------
        >>> df = zb.DataFrame({"city": ["Maun", None, "Tete"], "fare": [7.0, 3.5, None]})
        >>> df.info()
        <class 'zambezi.frame.DataFrame'>
        RangeIndex: 3 entries, 0 to 2
        Data columns (total 2 columns):
         #   Column  Non-Null Count  Dtype
        ---  ------  --------------  -----
         0   city    2 non-null      string
         1   fare    2 non-null      float64
        dtypes: float64(1), string(1)
        memory usage: 66.0 bytes
        """
        t = self._table
        names = t.names
        lines = [str(type(self)), index_summary(self._index)]
        if not names:
            lines.append(f"Empty {type(self).__name__}\n")
            _write(buf, lines)
            return None
        max_cols = _MAX_INFO_COLUMNS if max_cols is None else max_cols
        too_wide = len(names) > max_cols
        if show_counts is None:
            show_counts = not too_wide and len(self) <= _MAX_INFO_ROWS
        dtypes = [t.column(i).dtype for i in range(len(names))]
        if verbose or (verbose is None and not too_wide):
            lines.append(f"Data columns (total {len(names)} columns):")
            rows = []
            counts = self.count() if show_counts else None
            for i, (name, dt) in enumerate(zip(names, dtypes)):
                row = [f" {i}", str(name)]
                if show_counts:
                    row.append(f"{counts[name]} non-null")
                rows.append(row + [dt])
            headers = [" # ", "Column"] + (["Non-Null Count"] if show_counts else []) + ["Dtype"]
            lines += _table_lines(headers, rows)
        else:
            lines.append(f"Columns: {len(names)} entries, {names[0]} to {names[-1]}")
        tally = {}
        for dt in dtypes:
            tally[dt] = tally.get(dt, 0) + 1
        lines.append("dtypes: " + ", ".join(f"{k}({v:d})" for k, v in sorted(tally.items())))
        if memory_usage is None or memory_usage:
            total = self._index.nbytes + t.nbytes
            lines.append(f"memory usage: {_sizeof_fmt(total)}\n")
        _write(buf, lines)
        return None

    def _float_columns(self, numeric_only, what):
        t = self._table
        names, values = [], []
        for i, name in enumerate(t.names):
            col = t.column(i)
            if col.dtype not in _stats._NUMERIC:
                if numeric_only:
                    continue
                raise DTypeError(
                    f"{what}: column {name!r} is {col.dtype}, not a number or bool; pass "
                    "numeric_only=True to leave such columns out")
            names.append(name)
            col = _host(col)
            values.append(col if col.dtype == "float64" else _core.cast(col, "float64"))
        return names, values

    def _square(self, names, mat):
        # a statistic with no value is a null (NaN in to_pandas())
        cols = [_core.column_from_buffer(np.ascontiguousarray(mat[:, j]),
                                         mask=np.isnan(mat[:, j]))
                for j in range(len(names))]
        labels = _labels.index_for(self, names)
        out = self._constructor._wrap(_core.table_from_columns(cols, names), labels)
        return _labels.attach(out, labels)

    def corr(self, method="pearson", min_periods=1, numeric_only=False):
        """Correlation of each pair of columns, a float64 frame indexed
        and labelled by the column names.  Each pair uses the rows where
        both values are present (pairwise complete observations, as
        pandas), NaN for a pair with fewer than min_periods such rows or
        with a constant column.  method "pearson" or "spearman" (Pearson
        of the ranks, ties averaged).  Integer and bool columns count as
        numbers; any other column raises DTypeError unless
        numeric_only=True leaves it out.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3, 4], "b": [2.0, 4.5, None, 8.0], "c": [4, 3, 2, 2]})
        >>> df.corr().round(3)
                 a        b        c
           float64  float64  float64
        a        1    0.996   -0.944
        b    0.996        1   -0.995
        c   -0.944   -0.995        1
        <BLANKLINE>
        [3 rows x 3 columns]
        >>> df.corr(method="spearman")["c"].to_list()
        [-0.9486832980505138, -1.0, 1.0]
        """
        method = check_method(method)
        names, cols = self._float_columns(numeric_only, "corr")
        minp = 1 if min_periods is None else int(min_periods)
        if method == "pearson":
            return self._square(names, _engine_matrix(cols, False, minp, 1))
        # pandas' nancorr leaves out infinities as it does missing values
        values = [_float_values(c) for c in cols]
        values = [np.where(np.isinf(v), np.nan, v) if np.isinf(v).any() else v
                  for v in values]
        return self._square(names, _matrix(values, method, minp, 1))

    def cov(self, min_periods=None, ddof=1, numeric_only=False):
        """Covariance of each pair of columns (divided by n - ddof), a
        float64 frame indexed and labelled by the column names, each pair
        over the rows where both values are present; NaN below min_periods
        such rows.  Columns as in corr.  As pandas (documented there),
        ddof applies only when no value is missing; otherwise it is 1.

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, 2, 3, 4], "b": [2.0, 4.5, None, 8.0]})
        >>> df.cov()
                 a        b
           float64  float64
        a  1.66667  4.58333
        b  4.58333  9.08333
        <BLANKLINE>
        [2 rows x 2 columns]
        """
        names, cols = self._float_columns(numeric_only, "cov")
        minp = 1 if min_periods is None else int(min_periods)
        if any(_stats.has_missing(c) for c in cols):   # pandas' nancorr: ddof 1
            return self._square(names, _engine_matrix(cols, True, minp, 1))
        # nothing missing: the columns' own values (no copy before numpy's)
        return self._square(names, _matrix([_convert.values_numpy(c) for c in cols], "cov",
                                           minp, int(ddof)))


def _write(buf, lines):
    (sys.stdout if buf is None else buf).write("\n".join(lines))
