"""Parquet datasets: several files, hive partitions and ``filters=`` for
``zb.read_parquet``; ``partition_cols`` for ``DataFrame.to_parquet``.

A source is one file, a list of paths, a glob ("data/*.parquet") or a
directory, walked recursively in sorted order (names starting with "." or
"_" skipped, as pyarrow skips them).  In a directory, folders named
``key=value`` are hive partitions: every row of the files below gets the
column ``key``, its value percent-decoded ("c%20d" is "c d": pyarrow
percent-encodes every byte of the UTF-8 value but letters, digits and
"-._~"; ``__HIVE_DEFAULT_PARTITION__`` is a null).  Each file is read by
the engine's reader; the frames are concatenated (a fresh RangeIndex
unless the files store an index).

``filters`` is pyarrow's list-of-tuples form: ``[(column, op, value),
...]`` (all must hold) or a list of such lists (any of them must hold), op
one of ``= == != < <= > >= in not in``, with pyarrow's answers: a null
passes no comparison (a comparison with None passes no row); a NaN is a
float (it passes ``!=`` and fails the others); ``in`` matches nulls only
when the list holds None and NaNs only when it holds NaN, and ``not in``
is its negation (it keeps nulls unless the list holds None).  A
``decimal.Decimal`` value is compared as a number (decimal columns are
read as float64).
Files of a hive dataset whose partition values fail the filters are not
read; the rows of the others are filtered exactly after reading (no row
group is skipped by its statistics yet).
"""

import decimal
import glob
import math
import os
import uuid
from urllib.parse import quote, unquote

import numpy as np

from zambezi import _core
from zambezi.errors import ColumnNotFoundError, InvalidValueError, UnsupportedError

_OPS = ("=", "==", "!=", "<", "<=", ">", ">=", "in", "not in")


def sources(path):
    """The sorted list of files of a dataset source, or None for one file
    (or a file object)."""
    if isinstance(path, (list, tuple)):
        if not path:
            raise InvalidValueError("read_parquet: an empty list of paths")
        files = []
        for p in path:
            if not isinstance(p, (str, bytes, os.PathLike)):
                raise InvalidValueError("read_parquet: a list of paths holds "
                                        + type(p).__name__)
            files.append(os.fspath(p))
        return files
    if not isinstance(path, (str, os.PathLike)):
        return None
    p = os.fspath(path)
    if os.path.isdir(p):
        files = []
        for root, dirs, names in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")))
            files += [os.path.join(root, n) for n in sorted(names)
                      if not n.startswith((".", "_"))]
        if not files:
            raise FileNotFoundError(f"read_parquet: no files in the directory '{p}'")
        return sorted(files)
    if not os.path.exists(p) and glob.has_magic(p):
        files = sorted(glob.glob(p, recursive=True))
        if not files:
            raise FileNotFoundError(f"read_parquet: no files match '{p}'")
        return files
    return None


def _partitions(root, file):
    """[(key, value text)] of the key=value folders between root and file."""
    if root is None:
        return []
    rel = os.path.relpath(os.path.dirname(file), root)
    out = []
    for part in rel.split(os.sep):
        if "=" in part:
            k, v = part.split("=", 1)
            if v == _NULL_PART:
                v = None
            else:
                try:
                    v = unquote(v, errors="strict")
                except UnicodeDecodeError:
                    raise InvalidValueError(f"read_parquet: the partition folder '{part}' is "
                                            "not UTF-8 once percent-decoded") from None
            out.append((k, v))
    return out


def parse_filters(filters):
    """filters as a list of AND-lists, or None."""
    if filters is None:
        return None
    if not isinstance(filters, (list, tuple)) or not filters:
        raise InvalidValueError("read_parquet: filters must be a non-empty list of "
                                "(column, op, value) tuples or a list of such lists")
    groups = [filters] if isinstance(filters[0], tuple) else filters
    out = []
    for g in groups:
        if not isinstance(g, (list, tuple)) or not g:
            raise InvalidValueError("read_parquet: filters must be a list of (column, op, "
                                    "value) tuples or a list of such lists")
        conj = []
        for f in g:
            if not isinstance(f, tuple) or len(f) != 3 or not isinstance(f[0], str):
                raise InvalidValueError(f"read_parquet: a filter must be (column, op, value), "
                                        f"not {f!r}")
            col, op, val = f
            if op not in _OPS:
                raise InvalidValueError(f"read_parquet: unknown filter operator {op!r} "
                                        f"(one of {', '.join(_OPS)})")
            if op in ("in", "not in"):
                if isinstance(val, str) or not hasattr(val, "__iter__"):
                    raise InvalidValueError(f"read_parquet: the value of '{op}' must be a "
                                            f"collection, not {val!r}")
                val = list(val)
            conj.append((col, op, val))
        out.append(conj)
    return out


def with_filter_columns(columns, conditions, partition_keys):
    """columns plus those the filters need (None: every column)."""
    if columns is None:
        return None
    extra = [c for g in conditions for c, _, _ in g
             if c not in columns and c not in partition_keys]
    return columns + list(dict.fromkeys(extra))


def _plain(v):
    """A filter value as zambezi compares it: a decimal.Decimal becomes an
    int when integral, else a float (decimal columns are read as float64;
    pyarrow compares a Decimal with decimal, integer and float columns)."""
    if isinstance(v, decimal.Decimal):
        if v.is_finite() and v == v.to_integral_value():
            return int(v)
        return float(v)
    return v


def _is_null_value(v):
    """None, pandas' NA or NaT: a null in a filter value."""
    return v is None or type(v).__name__ in ("NAType", "NaTType")


def _mask(frame, col, op, val):
    """The rows passing (col, op, val), as pyarrow decides: a null never
    passes a comparison (nor one with None); a NaN compares as a float
    (it passes != and fails the others); ``in`` matches a null only when
    the list holds None and a NaN only when it holds NaN, and ``not in``
    is its negation (so it keeps nulls unless the list holds None)."""
    if col not in frame.columns:
        raise ColumnNotFoundError(f"read_parquet: filters name the column '{col}', which "
                                  "the data lacks")
    s = frame[col]
    if str(s.dtype).startswith("list<"):
        raise UnsupportedError(f"read_parquet: filters name the list column '{col}' "
                               f"({s.dtype}), which cannot be compared with {val!r}; read it "
                               "and filter on its lists (for example with .list.len())")
    null = s._like(_core.isnull(s._col))
    if op in ("in", "not in"):
        vals = [_plain(v) for v in val]
        some = [v for v in vals if not _is_null_value(v) and not _is_nan(v)]
        m = s.isin(some).fillna(False) & ~null
        if any(_is_null_value(v) for v in vals):
            m = m | null
        if any(_is_nan(v) for v in vals):
            m = m | (s.isna() & ~null)
        return ~m if op == "not in" else m
    val = _plain(val)
    if _is_null_value(val):  # pyarrow: a comparison with null is null
        return null & ~null
    if op in ("<", "<=", ">", ">=") and s.dtype == "category" and not s.cat.ordered:
        # pyarrow orders a dictionary column (hive partitions) by its values
        s = s.astype(s.cat.categories.dtype)
    if op in ("=", "=="):
        m = s == val
    elif op == "!=":
        m = s != val
    elif op == "<":
        m = s < val
    elif op == "<=":
        m = s <= val
    elif op == ">":
        m = s > val
    else:
        m = s >= val
    return m.fillna(False) & ~null


def _is_nan(v):
    return isinstance(v, (float, np.floating)) and math.isnan(v)


def apply(frame, conditions, columns):
    """frame's rows that pass the filters, then only the columns asked for."""
    if conditions is not None:
        from zambezi import index as _ix

        fresh = isinstance(frame._index, _ix.RangeIndex)
        mask = None
        for g in conditions:
            m = None
            for col, op, val in g:
                one = _mask(frame, col, op, val)
                m = one if m is None else m & one
            mask = m if mask is None else mask | m
        frame = frame[mask]
        if fresh:  # pyarrow filters before the frame is made: rows numbered afresh
            frame = frame.reset_index(drop=True)
    if columns is not None and list(frame.columns) != columns:
        frame = frame[columns]
    return frame


def read_many(files, columns, conditions, read_one, root=None):
    """Read every file, add the hive partition columns, concatenate and
    filter.  root: the directory read (its key=value folders are
    partitions even when it holds a single file), or None for a list or a
    glob (the folders below the files' common folder)."""
    from zambezi import _base, _concat
    from zambezi import index as _ix

    series_class = _base.series_class()

    if root is None and len(files) > 1:
        root = os.path.commonpath([os.path.dirname(f) for f in files])
    parts = [_partitions(root, f) for f in files]
    keys = list(dict.fromkeys(k for p in parts for k, _ in p))
    if conditions is not None and keys:
        files, parts = _prune(files, parts, keys, conditions)
    file_cols = None
    if columns is not None:
        file_cols = [c for c in columns if c not in keys]
        if conditions is not None:
            file_cols = with_filter_columns(file_cols, conditions, keys)
    frames = []
    for f, p in zip(files, parts):
        frame = read_one(f, file_cols, conditions)
        given = dict(p)
        for k in keys:
            if k in frame.columns:
                raise InvalidValueError(f"read_parquet: the partition key '{k}' is also a "
                                        f"column of '{f}'")
            v = given.get(k)
            frame[k] = series_class(np.full(len(frame), v, dtype=object), dtype="string",
                                    index=frame._index)
        frames.append(frame)
    ranged = all(isinstance(fr._index, _ix.RangeIndex) for fr in frames)
    out = _concat.concat(frames, ignore_index=ranged) if len(frames) > 1 else frames[0]
    for k in keys:
        values = [dict(p).get(k) for p in parts]
        try:
            ints = [int(v) for v in values if v is not None]
            out[k] = out[k].astype("int32") if ints and max(map(abs, ints)) < 2**31 else \
                out[k].astype("category")
        except ValueError:
            out[k] = out[k].astype("category")
    return apply(out, conditions, columns)


_NULL_PART = "__HIVE_DEFAULT_PARTITION__"


def _holds(value, op, want):
    """Whether a partition's value passes (column, op, want); None: cannot
    tell (the value and want do not compare)."""
    if op in ("in", "not in") and value is None:
        return any(_is_null_value(w) for w in want) == (op == "in")
    if value is None or (op not in ("in", "not in") and _is_null_value(want)):
        return False
    try:
        if op in ("in", "not in"):
            return (value in want) == (op == "in")
        return {"=": value == want, "==": value == want, "!=": value != want,
                "<": value < want, "<=": value <= want, ">": value > want,
                ">=": value >= want}[op]
    except TypeError:
        return None


def _prune(files, parts, keys, conditions):
    """The files whose partition values may pass the filters (the rows are
    still filtered exactly afterwards); at least one file is kept, for the
    columns of an empty result."""
    typed = {}
    for k in keys:
        texts = [dict(p).get(k) for p in parts]
        try:
            typed[k] = [None if t is None else int(t) for t in texts]
        except ValueError:
            typed[k] = texts
    keep = []
    for i in range(len(files)):
        ok = False
        for g in conditions:
            fails = any(_holds(typed[c][i], op, v) is False for c, op, v in g if c in typed)
            if not fails:
                ok = True
                break
        if ok:
            keep.append(i)
    keep = keep or [0]
    return [files[i] for i in keep], [parts[i] for i in keep]


def _missing(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


def _text(v):
    """A partition value as pyarrow writes it (booleans as true / false)."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    return str(v)


def write_partitioned(frame, root, keys, index, write):
    """Write frame as a hive dataset under root, as pyarrow's
    write_to_dataset does for pandas: one folder level per key
    (``key=value``, a null as __HIVE_DEFAULT_PARTITION__, the value
    percent-encoded as pyarrow does: every byte of its UTF-8 text but
    letters, digits and "-._~", so that "a/b" is one folder "k=a%2Fb"),
    one file per distinct combination of the keys holding the other
    columns.
    write(sub_frame, path, index) writes one file."""
    from zambezi import index as _ix

    if isinstance(keys, str) or not isinstance(keys, (list, tuple)) or not keys:
        raise InvalidValueError("to_parquet: partition_cols must be a list of column names")
    cols = list(frame.columns)
    for k in keys:
        if k not in cols:
            raise ColumnNotFoundError(f"to_parquet: partition_cols names '{k}', which is not "
                                      "a column")
        # pyarrow writes the key as it is: a separator would add a folder
        # level (or leave root) and "=" would split the key on reading
        if not str(k) or any(c in str(k) for c in ("/", os.sep, "=")):
            raise InvalidValueError(f"to_parquet: the partition column name {k!r} cannot be "
                                    "a folder name key=value (it must be a non-empty string "
                                    "without '/', '=' or the path separator)")
    data = [c for c in cols if c not in keys]
    if not data:
        raise InvalidValueError("to_parquet: partition_cols leaves no column to write")
    # a RangeIndex stays metadata (pandas converts the whole frame first)
    if index is None and isinstance(frame._index, _ix.RangeIndex):
        index = False
    combos = frame[list(keys)].drop_duplicates().to_dict("list")
    name = uuid.uuid4().hex
    os.makedirs(root, exist_ok=True)
    for i in range(len(combos[keys[0]])):  # one pass over the rows per partition
        mask, parts = None, []
        for k in keys:
            v = combos[k][i]
            s = frame[k]
            m = s.isna() if _missing(v) else (s == v).fillna(False)
            mask = m if mask is None else mask & m
            parts.append(f"{k}={_NULL_PART if _missing(v) else quote(_text(v), safe='')}")
        folder = os.path.join(root, *parts)
        os.makedirs(folder, exist_ok=True)
        write(frame[mask][data], os.path.join(folder, f"{name}-0.parquet"), index)
