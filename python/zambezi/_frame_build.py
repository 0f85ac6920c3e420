"""DataFrames from rows and arrays, as pandas builds them: a 2-D numpy
array (``columns`` names its columns, default 0, 1 ...), a numpy
structured array (a column per field), a 1-D array or list of scalars (one
column, 0; a range too), a list of dicts (a column per key, in order of
first appearance; a key a row lacks is missing there; dataclasses and
Series as rows read as dicts), a list of lists, tuples or 1-D arrays (a
column per position; namedtuples name the columns), an iterator of rows, a
Series (one column named by it); and ``DataFrame.from_dict`` (orient
"columns", "index", "tight") and ``from_records``.

A 2-D array becomes its columns by numpy slicing (no copy per row); lists
of rows are transposed with ``zip`` and each column is converted once as
a list.  Rows of Python objects are Python objects: a list of dicts is
read key by key, which is slow by nature, as in pandas.
"""

import collections.abc
import dataclasses
import itertools

import numpy as np

from zambezi import _base, _convert
from zambezi._agg import _hashable
from zambezi import index as _ix
from zambezi.errors import ColumnNotFoundError, DTypeError, InvalidValueError


def is_rows(data):
    """Whether DataFrame(data) is one of the row or array forms above."""
    return isinstance(data, (np.ndarray, list, tuple, range, collections.abc.Iterator)) or \
        _base.is_series(data)


def _is_series_row(r):
    return _base.is_series(r) or _convert._is_pandas(r, "Series")


def _series_rows(rows, index):
    """Rows given as Series: dicts of their labels, and the index pandas
    gives them (their names, "Unnamed i" for a nameless one, when any has
    a name)."""
    names = [r.name for r in rows]
    if index is None and any(n is not None for n in names):
        unnamed = itertools.count()
        index = [n if n is not None else f"Unnamed {next(unnamed)}" for n in names]
    return [r.to_dict() for r in rows], index


def to_columns(data, columns, index):
    """(dict of columns, columns left to select, index) for DataFrame's
    constructor from a row or array form."""
    if _base.is_series(data):
        return {data.name if data.name is not None else 0: data}, columns, index
    if isinstance(data, np.ndarray):
        if data.dtype.names:
            return {nm: np.ascontiguousarray(data[nm]) for nm in data.dtype.names}, \
                columns, index
        if data.ndim == 1:
            data = data.reshape(-1, 1)
        if data.ndim != 2:
            raise InvalidValueError(f"DataFrame: an array of {data.ndim} dimensions (1 or 2 "
                                    "make a frame)")
        names = _names(columns, data.shape[1], data.shape)
        return {nm: np.ascontiguousarray(data[:, j]) for j, nm in enumerate(names)}, \
            None, index
    rows = list(data)
    if not rows:
        return {c: [] for c in (columns or [])}, None, index
    if dataclasses.is_dataclass(rows[0]) and not isinstance(rows[0], type):
        rows = [dataclasses.asdict(r) for r in rows]
    elif all(_is_series_row(r) for r in rows):
        rows, index = _series_rows(rows, index)
    elif columns is None and isinstance(rows[0], tuple) and hasattr(rows[0], "_fields"):
        columns = list(rows[0]._fields)   # namedtuples name their columns (pandas)
    if all(isinstance(r, dict) for r in rows):
        keys = list(dict.fromkeys(k for r in rows for k in r))
        cols = {k: [r.get(k) for r in rows] for k in keys}
        if columns is not None:
            cols = {c: cols.get(c, [None] * len(rows)) for c in columns}
        return cols, None, index
    if all(isinstance(r, (list, tuple)) or (isinstance(r, np.ndarray) and r.ndim == 1)
           for r in rows):
        width = len(rows[0])
        if any(len(r) != width for r in rows):
            raise InvalidValueError("DataFrame: rows of different lengths")
        names = _names(columns, width, (len(rows), width))
        if not width:   # rows without values: no columns, as many rows (pandas)
            return {}, None, index if index is not None else range(len(rows))
        return {nm: list(col) for nm, col in zip(names, zip(*rows))}, None, index
    if any(isinstance(r, (dict, list, tuple, np.ndarray)) for r in rows):
        raise DTypeError("DataFrame: rows must all be dicts, all be lists / tuples, or all "
                         "be scalars")
    names = _names(columns, 1, (len(rows), 1))
    return {names[0]: rows}, None, index


def _names(columns, width, shape):
    if columns is None:
        return list(range(width))
    names = list(columns)
    if len(names) != width:
        raise InvalidValueError(f"Shape of passed values is {shape}, indices imply "
                                f"({shape[0]}, {len(names)})")
    return names


class FrameBuild:
    """DataFrame.from_dict / from_records (a mixin of zambezi.DataFrame)."""

    __slots__ = ()

    @classmethod
    def from_dict(cls, data, orient="columns", dtype=None, columns=None):
        """A frame from a dict: of columns (orient "columns"), of rows
        keyed by their label (orient "index": each row a dict or a list),
        or pandas' "tight" form (index, columns, data, index_names,
        column_names).

        Examples
        --------
        >>> zb.DataFrame.from_dict({"r1": {"a": 1, "b": 2}, "r2": {"a": 3}},
        ...                        orient="index").to_dict("list")
        {'a': [1, 3], 'b': [2, None]}
        """
        if orient == "columns":
            if columns is not None:
                raise InvalidValueError("cannot use columns parameter with orient='columns'")
            return cls(data, dtype=dtype)
        if orient == "index":
            labels, rows = list(data.keys()), list(data.values())
            if rows and all(isinstance(r, dict) or _is_series_row(r) for r in rows):
                return cls(rows, index=labels, columns=columns, dtype=dtype)
            return cls([list(r) for r in rows], index=labels, columns=columns, dtype=dtype)
        if orient == "tight":
            if columns is not None:
                raise InvalidValueError("cannot use columns parameter with orient='tight'")
            index = _tight_labels(data["index"], data.get("index_names"))
            out = cls([list(r) for r in data["data"]], index=index,
                      columns=list(data["columns"]), dtype=dtype)
            names = data.get("column_names")
            if names and len(names) == 1 and names[0] is not None:
                out.columns = _ix.Index(out.columns.to_list(), name=names[0])
            return out
        raise InvalidValueError(f"Expected 'index', 'columns' or 'tight' for orient "
                                f"parameter. Got '{orient}' instead")

    @classmethod
    def from_records(cls, data, index=None, exclude=None, columns=None, coerce_float=False,
                     nrows=None):
        """A frame from records: a list of tuples (``columns`` names the
        fields), of dicts, or a numpy structured array; ``index`` a field
        name (or names) to make the index, or the labels; ``exclude``
        fields to leave out; ``nrows`` the first rows of an iterator.

        Examples
        --------
        >>> zb.DataFrame.from_records([(1, "x"), (2, "y")], columns=["n", "s"],
        ...                           index="s").to_dict("list")
        {'n': [1, 2]}
        """
        if not isinstance(data, (list, tuple, np.ndarray, dict)) and hasattr(data, "__iter__"):
            data = list(itertools.islice(data, nrows))   # nrows: of an iterator, as pandas
        if isinstance(data, np.ndarray) and data.dtype.names and columns is not None:
            data = data[list(columns)]
            columns = None
        out = cls(data, columns=columns)
        if exclude:
            out = out.drop(columns=[c for c in exclude if c in out.columns.to_list()])
        if index is not None:
            fields = out.columns.to_list()
            one = isinstance(index, str) or not hasattr(index, "__iter__")
            names = [index] if one else list(index)
            if all(_hashable(k) and k in fields for k in names):   # fields, as pandas
                out = out.set_index(names)
            elif one:
                raise ColumnNotFoundError(f"from_records: no field {index!r} for the index")
            else:   # the labels themselves
                out.index = index
        return out


def _tight_labels(labels, names):
    labels = list(labels)
    if labels and all(isinstance(x, (list, tuple)) for x in labels):
        return _ix.MultiIndex.from_tuples([tuple(x) for x in labels], names=names)
    return _ix.Index(labels, name=names[0] if names else None)
