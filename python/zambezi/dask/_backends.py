"""The dispatches Dask DataFrame calls on partitions, registered for
zambezi's DataFrame, Series and Index, and the backend entry point.

Dask keeps a "meta" (an empty object with the result's columns and dtypes)
for every collection and calls these functions inside tasks:

- meta: ``make_meta`` (head(0)), ``make_meta_obj`` (from a dict / list of
  (name, dtype) / a (name, dtype) tuple), ``meta_nonempty`` (two rows of
  made-up values).  The objects are built with pandas' rules and converted
  (they are empty or two rows: nothing to gain from the engine here).
- ``concat_dispatch``: ``zb.concat``.
- ``hash_object_dispatch``: the engine's row hash (``_core.hash_rows``:
  the values of every column, with the index levels first when
  ``index=True``), a uint64 Series.  Equal values hash equally across
  integer widths and between categoricals and strings, so partitions whose
  dtypes differ that way still send equal keys to the same output.
- ``group_split_dispatch``: split a frame into k frames by an int array:
  one stable counting sort of the partition ids (numpy), one engine gather,
  then zero-copy slices.
- ``tolist``, categorical helpers, ``percentile_lookup`` (through
  ``Series.quantile``), Arrow tables both ways, ``sizeof`` (the engine's
  bytes: Dask's memory accounting), ``to_pandas_dispatch`` and the
  pandas -> zambezi conversion of ``to_backend("zambezi")``.
"""

import types

import numpy as np
import pandas as pd

from dask import config
from dask.array.dispatch import percentile_lookup
from dask.dataframe.backends import DataFrameBackendEntrypoint
from dask.dataframe.dispatch import (
    categorical_dtype_dispatch,
    concat_dispatch,
    from_pyarrow_table_dispatch,
    get_parallel_type,
    group_split_dispatch,
    hash_object_dispatch,
    is_categorical_dtype_dispatch,
    make_meta_dispatch,
    make_meta_obj,
    meta_nonempty,
    partd_encode_dispatch,
    pyarrow_schema_dispatch,
    to_pandas_dispatch,
    to_pyarrow_table_dispatch,
    tolist_dispatch,
    union_categoricals_dispatch,
)
from dask.sizeof import sizeof as sizeof_dispatch
from dask.tokenize import normalize_token
from dask.utils import Dispatch

import zambezi as zb
from zambezi import _core
from zambezi import _groupby
from zambezi import index as _ix
from zambezi.errors import InvalidValueError, UnsupportedError

_FRAMES = (zb.DataFrame, zb.Series)
_ALL = (zb.DataFrame, zb.Series, zb.Index)


# -- conversions ---------------------------------------------------------------

def from_pandas_obj(obj):
    """A zambezi object from a pandas DataFrame, Series or Index (others
    unchanged)."""
    if isinstance(obj, pd.DataFrame):
        return zb.from_pandas(obj)
    if isinstance(obj, pd.Series):
        return zb.Series(obj)
    if isinstance(obj, pd.Index):
        return _ix.from_pandas_index(obj)
    return obj


def to_pandas_obj(obj):
    """The pandas object of a zambezi DataFrame, Series or Index (others
    unchanged)."""
    if isinstance(obj, _ALL):
        return obj.to_pandas()
    return obj


# -- meta ----------------------------------------------------------------------

@make_meta_dispatch.register(_FRAMES)
def _make_meta_frame(x, index=None):
    return x.head(0)


@make_meta_dispatch.register(zb.Index)
def _make_meta_index(x, index=None):
    return x[0:0]


@make_meta_obj.register(_ALL)
def _make_meta_object(x, index=None):
    pandas_fn = make_meta_obj.dispatch(pd.DataFrame)
    if isinstance(x, _ALL):
        return x[0:0] if isinstance(x, zb.Index) else x.head(0)
    if hasattr(x, "_meta"):
        return x._meta
    return from_pandas_obj(pandas_fn(x, index=to_pandas_obj(index)))


@meta_nonempty.register(_ALL)
def _meta_nonempty(x):
    return from_pandas_obj(meta_nonempty(x.to_pandas()))


@get_parallel_type.register(zb.DataFrame)
def _parallel_frame(_):
    from dask.dataframe.dask_expr import DataFrame
    return DataFrame


@get_parallel_type.register(zb.Series)
def _parallel_series(_):
    from dask.dataframe.dask_expr import Series
    return Series


@get_parallel_type.register(zb.Index)
def _parallel_index(_):
    from dask.dataframe.dask_expr import Index
    return Index


# -- partition operations ------------------------------------------------------

@concat_dispatch.register(_ALL)
def _concat(dfs, axis=0, join="outer", uniform=False, filter_warning=True,
            ignore_index=False, **kwargs):
    if kwargs.get("ignore_order"):
        raise UnsupportedError("concat: ignore_order=True is not supported by the zambezi "
                               "backend")
    if isinstance(dfs[0], zb.Index):
        cols = [lvl for d in dfs for lvl in d._levels()]
        if dfs[0].nlevels != 1:
            raise UnsupportedError("concat: MultiIndex partitions are not supported yet")
        return zb.Index._from_columns([_core.concat(cols)], dfs[0].names)
    return zb.concat(list(dfs), axis=axis, join=join, ignore_index=ignore_index)


@tolist_dispatch.register((zb.Series, zb.Index))
def _tolist(obj):
    return obj.to_list()


def _engine_table(obj, index):
    """The engine table of obj's values (a Series as one column), the index
    levels first when index is true."""
    if isinstance(obj, zb.Index):
        cols, names = obj._levels(), [f"_{i}" for i in range(obj.nlevels)]
    elif isinstance(obj, zb.Series):
        cols, names = [obj._col], ["_v"]
    else:
        t = obj._table
        cols = [t.column(i) for i in range(t.num_columns)]
        names = [f"_v{i}" for i in range(t.num_columns)]
    if index and not isinstance(obj, zb.Index):
        levels = obj._index._levels()
        cols = list(levels) + list(cols)
        names = [f"_i{i}" for i in range(len(levels))] + names
    return _core.table_from_columns(list(cols), names), len(obj)


@hash_object_dispatch.register(_ALL)
def _hash_object(obj, index=True):
    table, n = _engine_table(obj, index)
    idx = None if isinstance(obj, zb.Index) else obj._index
    if table.num_columns == 0:
        return zb.Series(np.zeros(n, dtype=np.uint64), index=idx)
    col = _core.hash_rows(table)
    return zb.Series._from_column(col, None, idx)


@group_split_dispatch.register(_FRAMES)
def _group_split(df, c, k, ignore_index=False):
    ids = np.asarray(c)
    if ids.ndim != 1 or len(ids) != len(df):
        raise InvalidValueError(f"group_split: expected {len(df)} partition ids, got "
                                f"shape {ids.shape}")
    if ids.dtype.kind not in "iu":
        ids = ids.astype(np.int64)
    counts = np.bincount(ids, minlength=k) if len(ids) else np.zeros(k, dtype=np.int64)
    if len(counts) > k or (len(ids) and ids.min() < 0):
        raise InvalidValueError(f"group_split: partition ids must be in [0, {k})")
    # a stable sort keeps each part's rows in their order (numpy radix-sorts
    # small integers), then one gather and zero-copy slices
    order = np.argsort(ids, kind="stable").astype(np.int64, copy=False)
    ordered = df.take(order)
    if ignore_index:
        ordered = ordered.reset_index(drop=True)
    ends = np.cumsum(counts)
    starts = ends - counts
    out = {}
    for i in range(k):  # one slice per output part, not per row
        part = ordered.iloc[int(starts[i]):int(ends[i])]
        if ignore_index:
            part = part.reset_index(drop=True)
        out[i] = part
    return out


@partd_encode_dispatch.register(zb.DataFrame)
def _partd_encode(_):
    # the "disk" shuffle (no distributed client): partitions pickled
    # (protocol 5) into partd's files, joined back with zb.concat
    import functools
    import pickle

    import partd

    def join(dfs):
        return zb.concat(list(dfs)) if dfs else zb.DataFrame()

    dumps = functools.partial(pickle.dumps, protocol=pickle.HIGHEST_PROTOCOL)
    return functools.partial(partd.Encode, dumps, pickle.loads, join)


def _dtype_token(col):
    """A column's dtype for a token: a categorical's categories (their
    engine hash, in order) and ordered flag count, as a pandas
    CategoricalDtype's do (the row hash sees only the values)."""
    import hashlib

    if col.dtype != "category":
        return col.dtype
    d = col.dictionary
    if d.device != "cpu":
        d = d.to_device("cpu")
    digest = hashlib.sha1(np.asarray(_core.hash(d).values())).hexdigest() if len(d) else ""
    return "category", d.dtype, col.ordered, len(d), digest


@normalize_token.register(_ALL)
def _tokenize(obj):
    # Dask names tasks by a token of their arguments: the engine's row hash
    # of the values and labels (one pass in C) instead of Dask's fallback,
    # which pickles the object three times
    import hashlib

    table, n = _engine_table(obj, not isinstance(obj, zb.Index))
    digest = ""
    if table.num_columns and n:
        digest = hashlib.sha1(np.asarray(_core.hash_rows(table).values())).hexdigest()
    labels = obj.names if isinstance(obj, zb.Index) else \
        (list(obj.columns.to_list()) if isinstance(obj, zb.DataFrame) else obj.name)
    dtypes = [_dtype_token(table.column(i)) for i in range(table.num_columns)]
    return type(obj).__name__, str(labels), dtypes, n, obj.index.names \
        if not isinstance(obj, zb.Index) else None, digest


# -- categoricals --------------------------------------------------------------

@categorical_dtype_dispatch.register(_ALL)
def _categorical_dtype(categories=None, ordered=False):
    return pd.CategoricalDtype(categories=categories, ordered=ordered)


@is_categorical_dtype_dispatch.register(_ALL + (str,))
def _is_categorical(obj):
    # zambezi's dtypes are names ("category", "int64" ...): a str here
    # is one of ours (pandas and numpy dtypes have their own entries)
    dtype = getattr(obj, "dtype", obj)
    return isinstance(dtype, str) and dtype.startswith("category")


@union_categoricals_dispatch.register((zb.Series, zb.Index))
def _union_categoricals(to_union, sort_categories=False, ignore_order=False):
    from pandas.api.types import union_categoricals
    return from_pandas_obj(pd.Series(union_categoricals(
        [to_pandas_obj(x) for x in to_union], sort_categories=sort_categories,
        ignore_order=ignore_order)))


@percentile_lookup.register((zb.Series, zb.Index))
def _percentile(a, q, method="linear"):
    # the engine's quantile on the values; the partition boundaries of
    # sort_values / set_index come from these
    return percentile_lookup(to_pandas_obj(a), q, method)


# -- Arrow ---------------------------------------------------------------------

@to_pyarrow_table_dispatch.register(zb.DataFrame)
def _to_arrow(obj, preserve_index=None, **kwargs):
    import pyarrow as pa
    if preserve_index is False:
        obj = obj.reset_index(drop=True)
    return pa.table(obj)


@pyarrow_schema_dispatch.register(zb.DataFrame)
def _arrow_schema(obj, preserve_index=None, **kwargs):
    return _to_arrow(obj, preserve_index=preserve_index).schema


@from_pyarrow_table_dispatch.register(zb.DataFrame)
def _from_arrow(meta, table, self_destruct=None, **kwargs):
    return zb.from_arrow(table)


# -- memory --------------------------------------------------------------------

@sizeof_dispatch.register(_FRAMES)
def _sizeof_frame(obj):
    return int(obj.nbytes) + int(obj.index.nbytes) + 100


@sizeof_dispatch.register(zb.Index)
def _sizeof_index(obj):
    return int(obj.nbytes) + 100


# -- backends ------------------------------------------------------------------

@to_pandas_dispatch.register(_ALL)
def _to_pandas(data, nullable=False, **kwargs):
    if kwargs:
        raise UnsupportedError(f"to_backend('pandas'): unsupported arguments {sorted(kwargs)}")
    return data.to_pandas()


to_zambezi_dispatch = Dispatch("to_zambezi_dispatch")


@to_zambezi_dispatch.register((pd.DataFrame, pd.Series, pd.Index))
def _pandas_to_zambezi(data, **kwargs):
    if kwargs:
        raise UnsupportedError(f"to_backend('zambezi'): unsupported arguments {sorted(kwargs)}")
    return from_pandas_obj(data)


@to_zambezi_dispatch.register(_ALL)
def _zambezi_to_zambezi(data, **kwargs):
    return data


def _pandas_backend(func, *args, **kwargs):
    """func (a pandas-backend creation function) run with the pandas backend
    selected, so that it does not call back into this backend."""
    with config.set({"dataframe.backend": "pandas"}):
        return func(*args, **kwargs)


class _ZambeziBackend(DataFrameBackendEntrypoint):
    """The zambezi backend of Dask DataFrame: creation functions that make
    zambezi partitions, and ``to_backend("zambezi")``.

    Selected with ``dask.config.set({"dataframe.backend": "zambezi"})``.

    Built once by ``backend_entrypoint()``.
    """

    @classmethod
    def to_backend_dispatch(cls):
        return to_zambezi_dispatch

    @staticmethod
    def to_backend(data, **kwargs):
        from zambezi.dask._expr import to_zambezi

        return to_zambezi(data, kwargs)

    @staticmethod
    def from_dict(data, npartitions, orient="columns", dtype=None, columns=None,
                  constructor=None):
        # pandas builds the frame (its rules for orient / dtype), converted
        # once on the client; Dask slices the zambezi frame into partitions
        pdf = pd.DataFrame.from_dict(data, orient=orient, dtype=dtype, columns=columns)
        return _DASK_FROM_PANDAS[0](zb.from_pandas(pdf), npartitions=npartitions)

    @staticmethod
    def read_csv(urlpath, *args, **kwargs):
        from zambezi.dask._io import read_csv
        return read_csv(urlpath, *args, **kwargs)

    @staticmethod
    def read_parquet(path, *args, **kwargs):
        from zambezi.dask._io import read_parquet
        return read_parquet(path, *args, **kwargs)


# -- dd.from_pandas ------------------------------------------------------------
# Dask's from_pandas is not one of its backend-dispatched creation functions
# (dask-cudf's from_pandas keeps pandas partitions too): it slices whatever
# frame it is given.  register() puts this wrapper in its place in the
# public namespaces (dask.dataframe, dask.dataframe.dask_expr) and in the
# module whose functions call it, so that, with the zambezi backend
# selected, a pandas frame is converted once on the client and Dask slices
# the zambezi frame; a pandas operand of merge / concat / assign that Dask
# turns into a collection then gets zambezi partitions too, as the
# collections built under that backend have.

_DASK_FROM_PANDAS = []


def from_pandas(data, npartitions=None, sort=True, chunksize=None):
    """``dask.dataframe.from_pandas`` that makes zambezi partitions when the
    zambezi backend is selected (``dask.config`` "dataframe.backend"): a
    pandas DataFrame or Series is converted with ``zb.from_pandas`` once,
    then split as Dask splits it (by index, ``sort``, ``npartitions`` or
    ``chunksize``).  With another backend, or given a zambezi frame, it is
    Dask's function unchanged.  Importing zambezi.dask installs it as
    ``dd.from_pandas``.

    Examples
    --------
    >>> import dask, dask.dataframe as dd, pandas as pd
    >>> pdf = pd.DataFrame({"a": [3, 1, 2, 5]})
    >>> with dask.config.set({"dataframe.backend": "zambezi"}):
    ...     ddf = dd.from_pandas(pdf, npartitions=2)
    >>> type(ddf._meta).__module__, ddf.npartitions
    ('zambezi.frame', 2)
    >>> int(ddf.a.sum().compute(scheduler="sync"))
    11
    >>> isinstance(dd.from_pandas(pdf, npartitions=2)._meta, pd.DataFrame)  # pandas backend
    True
    """
    if isinstance(data, (pd.DataFrame, pd.Series)) and \
            config.get("dataframe.backend", "pandas") == "zambezi" and \
            not (chunksize is not None and npartitions is not None):
        # (Dask's argument errors come first, from the pandas frame)
        data = from_pandas_obj(data)
    return _DASK_FROM_PANDAS[0](data, npartitions=npartitions, sort=sort, chunksize=chunksize)


def repartition(df, divisions, force=False):
    """``dask.dataframe.repartition`` that makes zambezi partitions of a
    pandas frame when the zambezi backend is selected (as ``from_pandas``
    here); a collection, or another backend, goes to Dask's function
    unchanged.  Importing zambezi.dask installs it as ``dd.repartition``.

    Examples
    --------
    >>> import dask, dask.dataframe as dd, pandas as pd
    >>> pdf = pd.DataFrame({"a": [3, 1, 2, 5]})
    >>> with dask.config.set({"dataframe.backend": "zambezi"}):
    ...     ddf = dd.repartition(pdf, [0, 2, 3])
    >>> type(ddf._meta).__module__, ddf.npartitions
    ('zambezi.frame', 2)
    """
    if isinstance(df, (pd.DataFrame, pd.Series)) and \
            config.get("dataframe.backend", "pandas") == "zambezi":
        df = from_pandas_obj(df)
    return _DASK_FROM_PANDAS[1](df, divisions, force=force)


def _install_from_pandas():
    import dask.dataframe as dd
    import dask.dataframe.dask_expr as dx
    from dask.dataframe.dask_expr import _collection

    if not _DASK_FROM_PANDAS:
        _DASK_FROM_PANDAS.extend([_collection.from_pandas, _collection.repartition])
    dd.from_pandas = from_pandas
    dx.from_pandas = from_pandas
    _collection.from_pandas = from_pandas   # Dask's own conversions of pandas operands
    for mod in (dd, dx, _collection):
        if hasattr(mod, "repartition"):
            mod.repartition = repartition


# -- GroupBy.value_counts -------------------------------------------------------
# Dask's chunk step returns a pandas Series for a partition without groups,
# and its aggregate step joins the groups with pd.concat: both would mix
# pandas into zambezi partitions.  register() wraps them: zambezi GroupBys
# take these, anything else Dask's own functions.

def _value_counts_chunk(gb, **kwargs):
    if isinstance(gb, _groupby.GroupBy):
        return gb.value_counts(**kwargs)   # (an empty Series for no groups)
    return _DASK_VALUE_COUNTS[0](gb, **kwargs)


def _value_counts_aggregate(gb):
    if isinstance(gb, _groupby.GroupBy):
        # the chunks' counts, indexed by (keys..., values...): summed per
        # distinct index row, ordered by the index as Dask's aggregate does
        counts = gb._obj
        return counts.groupby(level=list(range(counts.index.nlevels)), sort=True,
                              dropna=False).sum()
    return _DASK_VALUE_COUNTS[1](gb)


_DASK_VALUE_COUNTS = []


def _install_value_counts():
    from dask.dataframe.dask_expr._groupby import ValueCounts

    if not _DASK_VALUE_COUNTS:
        _DASK_VALUE_COUNTS.extend([ValueCounts.groupby_chunk, ValueCounts.groupby_aggregate])
    ValueCounts.groupby_chunk = staticmethod(_value_counts_chunk)
    ValueCounts.groupby_aggregate = staticmethod(_value_counts_aggregate)


# -- GroupBy.var / std ----------------------------------------------------------
# Dask's chunk step labels the partial sums of squares and the counts with
# tuples made by rename(columns=lambda c: (c, "-x2")) and concatenates them
# beside the sums, whose labels are plain: pandas keeps such a mix as a flat
# Index of tuples, zambezi (whose labels are one Index: tuples form a
# MultiIndex) shows it as str.  register() wraps both steps: for zambezi
# frames the partial columns are labelled str(label) + a suffix after an
# ASCII unit separator (plain names, which Dask's shuffle of split_out
# keeps as they are), and the aggregate step takes the three parts by
# position and gives them the sums' labels.

_PART = "\x1f"


def _var_chunk(df, *by, numeric_only=None, observed=False, dropna=True):
    if not isinstance(df, _FRAMES):
        kw = {} if numeric_only is None else {"numeric_only": numeric_only}
        return _DASK_VAR[0](df, *by, observed=observed, dropna=dropna, **kw)
    from dask.dataframe.groupby import _groupby_raise_unaligned
    from dask.utils import no_default

    kw = {} if numeric_only in (None, no_default) else {"numeric_only": numeric_only}
    if isinstance(df, zb.Series):
        df = df.to_frame()
    g = _groupby_raise_unaligned(df, by=by, observed=observed, dropna=dropna)
    x = g.sum(**kw)
    labels = list(x.columns)
    n = g[labels].count()
    sq = df.copy()
    sq[labels] = sq[labels] ** 2
    x2 = _groupby_raise_unaligned(sq, by=by, observed=observed, dropna=dropna).sum(**kw)
    out = zb.concat([x, x2[labels], n[labels]], axis=1)
    out.columns = labels + [f"{c}{_PART}{part}" for part in ("x2", "count") for c in labels]
    return out


def _var_agg(g, levels, ddof, sort=False, numeric_only=None, observed=False, dropna=True):
    if not isinstance(g, _FRAMES):
        kw = {} if numeric_only is None else {"numeric_only": numeric_only}
        return _DASK_VAR[1](g, levels, ddof, sort=sort, observed=observed, dropna=dropna,
                            **kw)
    g = g.groupby(level=levels, sort=sort, observed=observed, dropna=dropna).sum()
    nc = len(g.columns) // 3
    labels = list(g.columns[:nc])
    parts = []
    for k in range(3):
        part = g.iloc[:, k * nc:(k + 1) * nc]
        part.columns = labels
        parts.append(part)
    x, x2, n = parts
    div = (n - ddof).clip(lower=0)
    result = (x2 - x ** 2 / n) / div
    # no degrees of freedom left: NaN; rounding below zero: 0 (as Dask's step)
    result = result.mask((n - ddof) == 0, np.nan)
    return result.clip(lower=0)


_DASK_VAR = []


def _install_var():
    from dask.dataframe.dask_expr._groupby import Var

    if not _DASK_VAR:
        _DASK_VAR.extend([Var.chunk, Var.reduction_aggregate])
    Var.chunk = staticmethod(_var_chunk)
    Var.reduction_aggregate = staticmethod(_var_agg)


# -- merge_asof -----------------------------------------------------------------
# Dask's merge_asof module calls pandas by name: pd.merge_asof for its meta
# and on each pair of partitions, pd.concat to pad a partition with the
# previous one's last rows.  register() gives that module (and only it) a
# pandas whose merge_asof and concat take zambezi frames to zambezi's own;
# everything else, and pandas operands, are pandas' own.

def _has_zambezi(objs):
    return any(isinstance(o, _FRAMES) for o in objs)


def _merge_asof(left, right, **kwargs):
    if _has_zambezi((left, right)):
        return zb.merge_asof(left, right, **kwargs)
    return pd.merge_asof(left, right, **kwargs)


def _concat(objs, **kwargs):
    objs = list(objs)
    if _has_zambezi(objs):
        return zb.concat([o for o in objs if o is not None], **kwargs)
    return pd.concat(objs, **kwargs)


def _merge_asof_padded(left, right, prev=None, next=None, **kwargs):
    """Dask's merge_asof_padded (the right partition with the previous
    one's tail and the next one's head) for zambezi partitions too."""
    frame = _concat([f for f in (prev, right, next) if f is not None])
    result = _merge_asof(left, frame, **kwargs)
    if result.index.name != left.index.name:
        result.index.name = left.index.name
    return result


class _PandasForMergeAsof(types.ModuleType):
    """pandas as Dask's merge_asof module sees it (see above)."""

    merge_asof = staticmethod(_merge_asof)
    concat = staticmethod(_concat)

    def __getattr__(self, name):
        return getattr(pd, name)


def _install_merge_asof():
    from dask.dataframe.dask_expr import _merge_asof as dask_asof

    if not isinstance(dask_asof.pd, _PandasForMergeAsof):
        dask_asof.pd = _PandasForMergeAsof("pandas")
    dask_asof.merge_asof_padded = _merge_asof_padded


_ENTRY = []


def backend_entrypoint():
    """The zambezi backend of Dask DataFrame (one object, made on the first
    call): what Dask's entry points ``dask.dataframe.backends`` and
    ``dask_expr.dataframe.backends`` name "zambezi" load.  Its creation
    functions (``from_dict``, ``read_csv``, ``read_parquet``) make zambezi
    partitions and ``to_backend`` converts a collection.  Select it with
    ``dask.config.set({"dataframe.backend": "zambezi"})``.

    Examples
    --------
    >>> import dask, dask.dataframe as dd
    >>> from zambezi.dask import backend_entrypoint
    >>> backend_entrypoint() is backend_entrypoint()
    True
    >>> with dask.config.set({"dataframe.backend": "zambezi"}):
    ...     ddf = dd.from_dict({"a": [1, 2, None, 4]}, npartitions=2)
    >>> type(ddf._meta).__name__
    'DataFrame'
    >>> float(ddf.a.sum().compute(scheduler="sync"))   # from_dict makes float64, as pandas
    7.0
    """
    if not _ENTRY:
        _ENTRY.append(_ZambeziBackend())
    return _ENTRY[0]


_REGISTERED = []


def register():
    """Register the backend under the name "zambezi" with Dask's creation
    dispatches (what the entry points do when zambezi is installed), and the
    collection types of zambezi partitions."""
    if _REGISTERED:
        return
    from dask._dispatch import get_collection_type
    from dask.dataframe.backends import dataframe_creation_dispatch as legacy
    from dask.dataframe.dask_expr._backends import dataframe_creation_dispatch

    from zambezi.dask._workers import _register_serializers

    entry = backend_entrypoint()
    _install_from_pandas()
    _install_value_counts()
    _install_var()
    _install_merge_asof()
    _register_serializers()
    dataframe_creation_dispatch.register_backend("zambezi", entry)
    legacy.register_backend("zambezi", entry)
    get_collection_type.register(zb.DataFrame, _parallel_frame)
    get_collection_type.register(zb.Series, _parallel_series)
    get_collection_type.register(zb.Index, _parallel_index)
    _REGISTERED.append(True)
