"""Column labels of a DataFrame other than its table's names.

A DataFrame's data is an engine Table whose column names are unique str,
and most frames are labelled by those names.  Some results need other
labels, as pandas gives them: tuples forming a MultiIndex
(``groupby().agg(["sum", "max"])``, ``concat(keys=...)`` along the
columns, ``unstack`` of a frame), integers (``concat(axis=1)`` of unnamed
Series), values of any dtype (``unstack``), or a named column index.
Such a frame keeps, in its ``_columns`` slot, the pair (table names the
labels were made for, an Index of labels parallel to them).  The table
names stay unique str derived from the labels (``"fare_sum"`` for
``("fare", "sum")``, ``"1"`` for 1), so every method that takes column
names keeps working on them.

A result made with ``_like`` shares the slot.  When the table's names no
longer match the ones the labels were made for (a column added, dropped,
renamed or reordered since), ``labels`` derives them again: a surviving
name keeps its label, a new name is its own label (padded with "" to the
MultiIndex's depth, as pandas pads).  So nothing that changes a frame's
columns has to know about labels.
"""

import numpy as np

from zambezi import _convert
from zambezi import index as _ix
from zambezi.errors import InvalidValueError, UnsupportedError


def as_list(keys):
    """One column label or an iterable of them, as a list (a str is one
    label)."""
    return [keys] if isinstance(keys, str) or not hasattr(keys, "__iter__") else list(keys)


def _is_plain(index, names):
    """Whether index says nothing the table names do not: unnamed str
    labels equal to the names."""
    return (index.nlevels == 1 and index.name is None and index.dtype == "string"
            and index.to_list() == list(names))


def attach(df, index):
    """Label df's columns with index (an Index as long as df has columns);
    labels that are the table names leave the slot empty.  Returns df."""
    names = df._table.names
    if index is None or _is_plain(index, names):
        df._columns = None
    else:
        df._columns = (tuple(names), index)
    return df


def _sync_pandas_names(df):
    """Names set on the pandas Index that ``df.columns`` gave (``df.columns.name
    = "x"``, as pandas code does) become the names of df's labels."""
    cache = getattr(df, "_pd_columns", None)
    if cache is None:
        return
    names, slot, pidx, seen = cache
    now = list(pidx.names)
    if now == seen:
        return
    if tuple(df._table.names) != names or df._columns is not slot:
        df._pd_columns = None  # the frame changed since: that Index is no longer its
        return
    base = slot[1] if slot is not None else _ix.Index._from_columns(
        [_convert.to_column(list(names), dtype="string")], [None])
    attach(df, base.set_names(now))
    df._pd_columns = (names, df._columns, pidx, now)


def labels(df):
    """df's column labels as an Index, or None when they are the table
    names."""
    _sync_pandas_names(df)
    slot = df._columns
    if slot is None:
        return None
    made_for, index = slot
    names = df._table.names
    if tuple(names) == made_for:
        return index
    old = dict(zip(made_for, index.to_list()))
    depth = index.nlevels
    out = []
    for nm in names:
        if nm in old:
            out.append(old[nm])
        else:
            out.append(nm if depth == 1 else (nm,) + ("",) * (depth - 1))
    idx = _like(index, out)
    df._columns = None if _is_plain(idx, names) else (tuple(names), idx)
    return None if df._columns is None else idx


def index_for(df, names=None):
    """df's column labels for some of its table's names (all of them by
    default), as an Index: a result indexed by columns (a reduction,
    ``describe``, a row, ``T``) shows what ``df.columns`` shows."""
    all_names = list(df._table.names)
    names = all_names if names is None else list(names)
    idx = labels(df)
    if idx is None:
        return _ix.Index._from_columns([_convert.to_column(names, dtype="string")], [None])
    values = idx.to_list()
    where = {nm: i for i, nm in enumerate(all_names)}
    return _like(idx, [values[where[nm]] for nm in names])


def _like(index, values):
    """An Index of labels values made from some of index's: labels of
    mixed kinds stay an object Index, as pandas keeps its dtype."""
    if isinstance(index, _ObjectLabels):
        return _ObjectLabels._of(values, index.name)
    return from_list(values, index.names)


def label_list(df):
    """df's column labels as a list of Python values."""
    idx = labels(df)
    return list(df._table.names) if idx is None else idx.to_list()


def names_by_label(df):
    """{column label: [its table names]} for the methods that take column
    labels (dict keys, lists): an int label 0 is the column named "0"; a
    label several columns share lists them all, in order."""
    out = {}
    for nm, lb in zip(df._table.names, label_list(df)):
        out.setdefault(lb, []).append(nm)
    return out


def to_names(df, keys):
    """The table names of the column labels keys (a list), for the methods
    that take column labels: a key that is one of df's labels becomes its
    column's table name (an int label 0 the column "0"; a label several
    columns share, each of them); any other key stays, for the caller to
    report.  keys as a list when df's labels are its table names."""
    if labels(df) is None:
        return list(keys)
    by = names_by_label(df)
    out = []
    for k in keys:
        try:
            hit = by.get(k)
        except TypeError:  # an unhashable key is no label
            hit = None
        out.extend(hit if hit is not None else [k])
    return out


def from_list(values, names=None):
    """An Index of labels (a MultiIndex when they are tuples).  Labels of
    mixed types that no one column can hold become str."""
    values = list(values)
    if values and all(isinstance(v, tuple) for v in values):
        depth = max(len(v) for v in values)
        tuples = [v + ("",) * (depth - len(v)) for v in values]
        levels = [_level([t[i] for t in tuples]) for i in range(depth)]
        nm = list(names) if names is not None and len(names) == depth else [None] * depth
        return _ix.MultiIndex._from_columns(levels, nm)
    name = names[0] if names is not None and len(names) == 1 else None
    if _mixed(values):
        return _ObjectLabels._of(values, name)
    return _ix.Index._from_columns([_level(values)], [name])


def _mixed(values):
    """Whether labels are of kinds no one column holds (str beside
    numbers: ``reset_index`` of a frame whose columns are years)."""
    kinds = {type(v) for v in values if v is not None and not (isinstance(v, float) and v != v)}
    kinds = {int if issubclass(k, (int, np.integer)) and k is not bool else
             float if issubclass(k, (float, np.floating)) else k for k in kinds}
    return len(kinds) > 1 and not kinds <= {int, float, bool} and \
        all(issubclass(k, (str, int, float, bool)) for k in kinds)


class _ObjectLabels(_ix.Index):
    """Column labels of mixed kinds, as pandas' object Index holds them
    (``['store', 2021, 2022]``): the labels themselves in a tuple (a
    frame's columns are few), their text as the level the engine sees.
    Lookups, iteration, ``to_pandas`` and display use the labels."""

    __slots__ = ("_objects",)

    @classmethod
    def _of(cls, values, name=None):
        out = object.__new__(cls)
        out._objects = tuple(values)
        out._cols = [_convert.to_column([None if v is None else str(v) for v in values],
                                        dtype="string")]
        out._names = [name]
        out._src = None
        out._cache = None
        out._keys = None
        return out

    def __reduce__(self):
        return (_ObjectLabels._of, (list(self._objects), self._names[0]))

    def _rename_all(self, names):
        return _ObjectLabels._of(self._objects, list(names)[0])

    def _to_device(self, device):
        return self

    def _take(self, rows):
        from zambezi import _core

        pos = _convert.values_numpy(rows.apply(_core.column_from_buffer(
            np.arange(len(self._objects), dtype=np.int64))))
        return _ObjectLabels._of([self._objects[i] for i in pos], self._names[0])

    @property
    def dtype(self):
        return "object"

    def to_list(self):
        return list(self._objects)

    tolist = to_list

    def _label_at(self, i):
        return self._objects[i]

    def to_numpy(self, dtype=None):
        out = np.empty(len(self._objects), dtype=object)
        out[:] = self._objects
        return out if dtype is None else out.astype(dtype)

    def to_pandas(self):
        import pandas as pd

        return pd.Index(list(self._objects), dtype=object, name=self.name)

    def _lookup(self):
        if self._cache is None:
            self._cache = _ObjectLookup(self._objects)
        return self._cache

    def get_indexer(self, target, method=None, limit=None, tolerance=None):
        if method is not None:
            raise UnsupportedError("get_indexer with a method on labels of mixed kinds is "
                                   "not supported")
        return super().get_indexer(target, limit=limit, tolerance=tolerance)

    def equals(self, other):
        return isinstance(other, _ix.Index) and other.nlevels == 1 and \
            len(other) == len(self) and all(
                _same_label(a, b) for a, b in zip(self._objects, other.to_list()))

    def _compare(self, other, op):
        if op not in ("__eq__", "__ne__"):
            raise UnsupportedError("ordering labels of mixed kinds is not supported")
        others = other.to_list() if isinstance(other, _ix.Index) else \
            list(other) if isinstance(other, (list, tuple, np.ndarray)) else \
            [other] * len(self._objects)
        if len(others) != len(self._objects):
            raise InvalidValueError("Lengths must match to compare")
        eq = np.array([_same_label(a, b) and a is not None for a, b in
                       zip(self._objects, others)], dtype=bool)
        return eq if op == "__eq__" else ~eq


class _ObjectLookup:
    """What label lookups (get_loc, in, loc, reindex) ask of an index, for
    labels of mixed kinds: a scan of the few labels, none of the engine's
    sorted keys."""

    def __init__(self, objects):
        self.objects = objects
        self.col = None   # (zambezi._index_lookup: no engine column to search)
        self.keys = None
        self.order = None
        self.n_valid = len(objects)
        self.increasing = False
        try:
            self.unique = len(set(objects)) == len(objects)
        except TypeError:
            self.unique = False

    def positions(self, label):
        return np.asarray([i for i, v in enumerate(self.objects) if _same_label(v, label)],
                          dtype=np.int64)

    def first_positions(self, labels):
        out = [self.positions(v) for v in labels]
        return np.array([p[0] if len(p) else -1 for p in out], dtype=np.int64)


def _same_label(a, b):
    """Label equality as pandas' object Index sees it (1 == 1.0; "1" is not 1)."""
    if isinstance(a, str) != isinstance(b, str):
        return False
    try:
        return bool(a == b) or (a is None and b is None)
    except (TypeError, ValueError):
        return False


def _level(values):
    def nan(v):
        return isinstance(v, float) and v != v

    kinds = {type(v) for v in values if v is not None and not nan(v)}
    if kinds == {str}:  # NaN among text labels is a missing label (pandas' str Index)
        values = [None if nan(v) else v for v in values]
    if len(kinds) > 1 and not kinds <= {int, float, bool}:
        values = [None if v is None else str(v) for v in values]
    if not values:
        return _convert.to_column([], dtype="string")
    try:
        return _convert.to_column(values)
    except Exception:  # labels no column holds: shown as text
        return _convert.to_column([None if v is None else str(v) for v in values])


def internal_names(values):
    """Unique str table names for labels: a str label is its own name, a
    tuple joins its non-empty parts with "_", anything else is str(label);
    repeats get a suffix "_1", "_2" ..."""
    out, seen = [], set()
    for v in values:
        if isinstance(v, tuple):
            parts = [str(p) for p in v if p is not None and p != ""]
            base = "_".join(parts) if parts else "level"
        else:
            base = str(v)
        nm, k = base, 0
        while nm in seen:
            k += 1
            nm = f"{base}_{k}"
        seen.add(nm)
        out.append(nm)
    return out


def frame_from(cls, cols, labels, index=None, names=None):
    """A frame (class cls) over engine columns labelled by labels: the
    table names when they are unique str, else zambezi._labels; names: the
    column labels' level names."""
    from zambezi import _core

    labels = list(labels)
    if all(isinstance(lb, str) for lb in labels) and len(set(labels)) == len(labels) and \
            not any(nm is not None for nm in (names or ())):
        return cls._wrap(_core.table_from_columns(cols, labels), index)
    out = cls._wrap(_core.table_from_columns(cols, internal_names(labels)), index)
    return attach(out, from_list(labels, names))


def relabel(df, index):
    """df with its table's columns renamed after index (labels) and
    labelled by it; shares the data."""
    from zambezi import _core

    t = df._table
    names = internal_names(index.to_list())
    out = df._like(_core.table_from_columns([t.column(i) for i in range(t.num_columns)],
                                            names))
    return attach(out, index)


def getitem(df, key):
    """``df[key]`` on a frame with labels: a label gives a Series (named by
    the label); on a MultiIndex, a first-level value gives the frame of
    those columns labelled by the remaining levels; a list of labels a
    frame.  Returns NotImplemented when key is not a label here."""
    idx = labels(df)
    if idx is None:
        return NotImplemented
    values = idx.to_list()
    t = df._table
    if isinstance(key, list):
        pos = []
        for k in key:
            hits = [i for i, v in enumerate(values) if v == k]
            if not hits:
                raise df._missing(k)
            pos.extend(hits)
        out = df._like(t.select(pos))
        return attach(out, _like(idx, [values[i] for i in pos]))
    if idx.nlevels > 1 and not isinstance(key, tuple):
        pos = [i for i, v in enumerate(values) if v[0] == key]
        if not pos:
            raise df._missing(key)
        rest = [values[i][1:] for i in pos]
        rest = [r[0] if len(r) == 1 else r for r in rest]
        sub = df._like(t.select(pos))
        return relabel(sub, from_list(rest, idx.names[1:]))
    if isinstance(key, tuple) and idx.nlevels > 1 and len(key) < idx.nlevels:
        pos = [i for i, v in enumerate(values) if v[:len(key)] == key]
        if not pos:
            raise df._missing(key)
        rest = [values[i][len(key):] for i in pos]
        rest = [r[0] if len(r) == 1 else r for r in rest]
        return relabel(df._like(t.select(pos)), from_list(rest, idx.names[len(key):]))
    hits = [i for i, v in enumerate(values) if v == key]
    if not hits:
        raise df._missing(key)
    if len(hits) > 1:
        out = df._like(t.select(hits))
        return attach(out, _like(idx, [values[i] for i in hits]))
    return df._sliced(t.column(hits[0]), key)
