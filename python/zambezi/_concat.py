"""``zambezi.concat``: DataFrames or Series one after another (axis=0) or
side by side (axis=1), as ``pandas.concat``.

One engine call (``_core.concat``) per column; numbers of different types
are cast to a common one first.  Categoricals stay categorical when every
part has the same categories (in any order unless ordered; the first
part's order), as pandas; otherwise they concatenate as their categories'
values (pandas' rule: text gives a str column).  Row labels follow pandas 3:

- axis=0 keeps each input's labels (their levels concatenated; inputs
  whose RangeIndexes continue one another give one RangeIndex);
  ``ignore_index=True`` numbers the rows 0..n-1; ``keys=`` adds an outer
  level naming the input each row came from.
- Frames with different columns: ``join="outer"`` (the default) takes
  every column, in order of first appearance, a frame without it giving
  nulls there; ``join="inner"`` only the columns all frames have.
- axis=1 puts the columns side by side: inputs with equal indexes are
  joined by position; otherwise the rows are aligned on their labels (one
  engine join per input): ``"outer"`` gives the union of the labels in
  order of first appearance, ``"inner"`` the labels all inputs have, in
  the first input's order.  An unnamed Series becomes a column labelled
  0, 1, ... (counting unnamed Series); ``keys=`` labels the columns
  (key, column).

Differences from pandas: an integer or bool column that gains missing
rows (a frame without that column, a label missing on one side) keeps its
dtype with nulls (pandas makes it float64 or object); aligning on labels
needs labels unique per input, and a null label matches no other; column
labels of mixed types (an unnamed Series' 0 beside a column "a") are shown
as str ("0"), where pandas keeps an object Index.
"""

import numpy as np

from zambezi import _base, _convert, _core, _labels
from zambezi import index as _ix
from zambezi._compute import _engine_error
from zambezi.errors import DTypeError, InvalidValueError, ZambeziError

_INTS = ("int8", "int16", "int32", "int64")
_UINTS = ("uint8", "uint16", "uint32", "uint64")


def _common_dtype(dtypes):
    """The dtype numbers of different types concatenate as, or None when
    they are not all numbers: numpy's promotion, as pandas uses it (int8
    with int16 is int16, float32 with int16 float32, int64 with uint64
    float64)."""
    if any(d not in _INTS + _UINTS + ("float32", "float64") for d in dtypes):
        return None
    return np.result_type(*[np.dtype(d) for d in dtypes]).name


def _categories_of(col):
    """(ordered, categories as a list) of a categorical column."""
    col = col if col.device == "cpu" else col.to_device("cpu")
    return col.ordered, col.dictionary.to_pylist()


def _same_categories(parts):
    """Whether categorical parts share one pandas CategoricalDtype: the same
    flag and categories (as a set when unordered, in order when ordered)."""
    first_ordered, first = _categories_of(parts[0])
    for p in parts[1:]:
        ordered, cats = _categories_of(p)
        if p.dictionary.dtype != parts[0].dictionary.dtype:
            return False
        if ordered != first_ordered or len(cats) != len(first) or (
                cats != first if ordered else set(cats) != set(first)):
            return False
    return True


def _concat_columns(parts, what):
    """One column from parts (engine columns), casting numbers to a common
    type when their types differ, and categoricals of different categories
    (or beside other dtypes) to their categories' dtype."""
    if any(p.dtype == "category" for p in parts) and not (
            all(p.dtype == "category" for p in parts) and _same_categories(parts)):
        parts = [_core.cast(p, p.dictionary.dtype) if p.dtype == "category" else p
                 for p in parts]
    dtypes = {p.dtype for p in parts}
    if len(dtypes) > 1:
        target = _common_dtype(dtypes)
        if target is not None:
            parts = [p if p.dtype == target else _core.cast(p, target) for p in parts]
    if len(parts) == 1:
        return parts[0]
    try:
        return _core.concat(parts)
    except ZambeziError as e:
        raise _engine_error(
            e, f"concat of {what} (dtypes " + ", ".join(p.dtype for p in parts) + ")") from None


def _int64(arr):
    return _core.column_from_buffer(np.ascontiguousarray(arr, dtype=np.int64))


# --------------------------------------------------------------------------
# row labels
# --------------------------------------------------------------------------

def _append_indexes(indexes):
    """The labels of several objects one after another (pandas'
    Index.append): consecutive RangeIndexes stay one RangeIndex."""
    ranges = [ix for ix in indexes if len(ix)]
    if all(isinstance(ix, _ix.RangeIndex) for ix in indexes):
        if not ranges:
            return _ix.default_index(0)
        step = ranges[0].step if len(ranges[0]) > 1 else None
        ok, nxt = True, ranges[0].start
        for r in ranges:
            if r.start != nxt or (len(r) > 1 and step is not None and r.step != step):
                ok = False
                break
            if len(r) > 1 and step is None:
                step = r.step
            nxt = r.start + len(r) * (step or 1)
        if ok:
            step = step or 1
            start = ranges[0].start
            name = indexes[0].name if all(ix.name == indexes[0].name for ix in indexes) \
                else None  # a name all share stays, as in pandas
            return _ix.RangeIndex(start, start + step * sum(len(r) for r in ranges), step,
                                  name=name)
    depth = indexes[0].nlevels
    if any(ix.nlevels != depth for ix in indexes):
        raise InvalidValueError("concat: the inputs' indexes have different numbers of levels")
    levels = []
    for i in range(depth):
        parts = [ix._levels()[i] for ix in indexes]
        levels.append(_concat_columns(parts, f"index level {i}"))
    names = [indexes[0].names[i] if all(ix.names[i] == indexes[0].names[i] for ix in indexes)
             else None for i in range(depth)]
    return _ix.Index._from_columns(levels, names)


def _with_keys(index, keys, lengths, names):
    """index with the outer level concat(keys=...) adds: keys[i] repeated
    lengths[i] times (one engine take)."""
    kcol = _ix.Index(list(keys))._levels()[0]
    col = _core.take(kcol, _int64(np.repeat(np.arange(len(keys), dtype=np.int64), lengths)))
    levels = [col] + list(index._levels())
    nm = list(names) if names is not None else [None] + list(index.names)
    if len(nm) < len(levels):
        nm = nm + list(index.names)[len(nm) - 1:]
    return _ix.MultiIndex._from_columns(levels, nm[:len(levels)])


# --------------------------------------------------------------------------
# the entry point
# --------------------------------------------------------------------------

def concat(objs, axis=0, join="outer", ignore_index=False, keys=None, names=None,
           sort=False, copy=None):
    """Several DataFrames or Series one after another (axis=0, the
    default) or side by side (axis=1), as ``pandas.concat``: row labels
    kept (``ignore_index=True`` numbers rows 0..n-1), frames with
    different columns joined (``join="outer"``: all columns, nulls where a
    frame lacks one; ``"inner"``: the common ones), ``keys=`` an outer
    level naming each input.  The notes of zambezi._concat give the rules
    and the differences from pandas.

    Examples
    --------
    >>> a = zb.DataFrame({"k": [1, 2], "v": ["x", "y"]})
    >>> b = zb.DataFrame({"k": [3], "v": [None]})
    >>> zb.concat([a, b])
           k       v
       int64  string
    0      1       x
    1      2       y
    0      3    <NA>
    <BLANKLINE>
    [3 rows x 2 columns]
    >>> zb.concat([a, b], ignore_index=True).index
    RangeIndex(start=0, stop=3, step=1)
    >>> zb.concat([a, zb.DataFrame({"w": [0.5]})]).to_dict("list")
    {'k': [1, 2, None], 'v': ['x', 'y', None], 'w': [None, None, 0.5]}
    >>> zb.concat([zb.Series([1, 2], name="a"), zb.Series([3], name="b")], axis=1)
               a      b
           int64  int64
    0          1      3
    1          2   <NA>
    <BLANKLINE>
    [2 rows x 2 columns]
    >>> zb.concat([zb.Series([1, 2]), zb.Series([3])], keys=["p", "q"]).index.to_list()
    [('p', 0), ('p', 1), ('q', 0)]
    """
    if keys is not None and ignore_index:
        raise InvalidValueError("Cannot set ignore_index=True and specify keys. Either should "
                                "be used.")
    if isinstance(objs, dict):
        if keys is None and not ignore_index:   # a dict's keys, unless the index is ignored
            keys = list(objs.keys())
        objs = [objs[k] for k in (keys if keys is not None else objs)]
    objs = list(objs)
    if keys is not None:
        kn = getattr(keys, "names", None)  # an Index of keys: its names name the new level
        if names is None and not isinstance(keys, (list, tuple)) and kn is not None and \
                any(n is not None for n in kn):
            names = list(kn)
        keys = list(keys)
        if len(keys) != len(objs):
            raise InvalidValueError(f"concat: {len(keys)} keys for {len(objs)} objects")
        pairs = [(k, o) for k, o in zip(keys, objs) if o is not None]
        keys, objs = [k for k, _ in pairs], [o for _, o in pairs]
    else:
        objs = [o for o in objs if o is not None]
    if not objs:
        raise InvalidValueError("concat: no objects to concatenate")
    for o in objs:
        if not isinstance(o, _base.NDFrame):
            raise DTypeError(f"concat takes DataFrames and Series, not {type(o).__name__}")
    if join not in ("outer", "inner"):
        raise InvalidValueError(f"concat: join must be 'outer' or 'inner', not {join!r}")
    if axis in (0, "index", "rows"):
        if keys is None and len(objs) > 1:
            # frames with neither rows nor columns (DataFrame()) add nothing, as
            # in pandas: the others' index name and dtypes stay
            kept = [o for o in objs if not (o._ndim == 2 and len(o) == 0
                                            and not len(o._table.names))]
            objs = kept or objs[:1]
        return _concat_rows(objs, join, ignore_index, keys, names, sort)
    if axis in (1, "columns"):
        return _concat_side(objs, join, ignore_index, keys, names, sort)
    raise InvalidValueError(f"concat: axis must be 0 or 1, not {axis!r}")


def _concat_rows(objs, join, ignore_index, keys, names, sort):
    lengths = [len(o) for o in objs]
    if ignore_index:
        index = _ix.default_index(sum(lengths))
    else:
        index = _append_indexes([o._index for o in objs])
    if keys is not None and not ignore_index:
        index = _with_keys(index, keys, lengths, names)
    if all(_base.is_series(o) for o in objs):
        name = objs[0].name if all(o.name == objs[0].name for o in objs) else None
        col = _concat_columns([o._col for o in objs], "Series")
        return objs[0]._constructor._from_column(col, name, index)
    frames = [o if _base.is_frame(o) else _series_frame(o) for o in objs]
    per = [_labels.label_list(f) for f in frames]
    if all(p == per[0] for p in per) and not sort:
        out_labels = per[0]
        where = [list(range(len(out_labels)))] * len(frames)
    else:
        for p in per:
            if len(set(p)) != len(p):
                raise InvalidValueError(
                    "concat: frames with different columns must not repeat a column label")
        out_labels = _join_labels(per, join, sort)
        where = [[_find(p, lb) for lb in out_labels] for p in per]
    cols = []
    for j, lb in enumerate(out_labels):
        parts = []
        proto = next(f._table.column(w[j]) for f, w in zip(frames, where) if w[j] is not None)
        for f, w in zip(frames, where):
            parts.append(f._table.column(w[j]) if w[j] is not None else
                         _convert.nulls_like(proto, len(f)))
        cols.append(_concat_columns(parts, f"column {lb!r}"))
    cls = frames[0]._constructor
    if not out_labels:
        return cls._wrap(_core.table_from_columns([], []), index)
    lab = _labels.labels(frames[0])
    lnames = lab.names if lab is not None and all(
        (_labels.labels(f) is not None and _labels.labels(f).names == lab.names)
        for f in frames) else None
    return _labels.frame_from(cls, cols, out_labels, index, lnames)


def _find(labels, label):
    """The position of label among labels (1 and "1" differ), or None."""
    for i, v in enumerate(labels):
        if type(v) is type(label) and v == label:
            return i
    return None


def _join_labels(per, join, sort):
    if join == "inner":
        out = [lb for lb in per[0] if all(_find(p, lb) is not None for p in per[1:])]
    else:
        out = []
        for p in per:
            for lb in p:
                if _find(out, lb) is None:
                    out.append(lb)
    if sort:
        try:
            out = sorted(out)
        except TypeError:  # labels that do not compare stay in order, as in pandas
            pass
    return out


def _series_frame(s, label=None):
    """A Series as a one-column frame labelled by its name (label when
    unnamed)."""
    lb = s.name if s.name is not None else (0 if label is None else label)
    return _labels.frame_from(s._constructor_expanddim, [s._col], [lb], s._index)


def _key_tuple(key):
    """A key's levels: a tuple key gives one level per element, as pandas."""
    return key if isinstance(key, tuple) else (key,)


def _concat_side(objs, join, ignore_index, keys, names, sort):
    frames, unnamed = [], 0
    any_frame = any(_base.is_frame(o) for o in objs)
    for i, o in enumerate(objs):
        if _base.is_series(o):  # a column labelled by its key, name or a count
            if keys is not None and any_frame:  # beside frames: (key, name), as theirs
                lb = _key_tuple(keys[i]) + (0 if o.name is None else o.name,)
            elif keys is not None:
                lb = keys[i]
            elif o.name is None:
                lb, unnamed = unnamed, unnamed + 1
            else:
                lb = o.name
            o = _labels.frame_from(o._constructor_expanddim, [o._col], [lb], o._index)
        frames.append(o)
    index, positions = _align(frames, join, sort)
    cols, labels = [], []
    for i, (f, pos) in enumerate(zip(frames, positions)):
        t = f._table
        for j, lb in enumerate(_labels.label_list(f)):
            c = t.column(j)
            cols.append(c if pos is None else _core.take(c, pos))
            if keys is not None and _base.is_frame(objs[i]):
                labels.append(_key_tuple(keys[i]) + (lb if isinstance(lb, tuple) else (lb,)))
            else:
                labels.append(lb)
    # columns numbered 0, 1, ...: ignore_index, or Series without names
    numbered = ignore_index or (keys is None and unnamed == len(objs))
    if ignore_index:
        labels = list(range(len(labels)))
    cls = _base.frame_class()
    if keys is not None and any(isinstance(lb, tuple) for lb in labels):
        labels = [lb if isinstance(lb, tuple) else (lb,) for lb in labels]
    lnames = list(names) if names is not None else None
    if lnames is not None and labels and isinstance(labels[0], tuple) and \
            len(lnames) < len(labels[0]):  # names of the keys' levels; the rest unnamed
        lnames += [None] * (len(labels[0]) - len(lnames))
    out = _labels.frame_from(cls, cols, labels, index, lnames)
    return _labels.attach(out, _ix.RangeIndex(len(labels))) if numbered and not lnames else out


def _align(frames, join, sort):
    """The result's index and, per input, the positions of its rows (an
    int64 engine column with nulls for labels it lacks; None: the rows as
    they are)."""
    first = frames[0]._index
    # each level's name: the one every input gives it, else none (pandas' union)
    common = [nm if all(f._index.nlevels == first.nlevels and f._index.names[i] == nm
                        for f in frames) else None for i, nm in enumerate(first.names)]
    if all(f._index is first or f._index.equals(first) for f in frames[1:]):
        if common != list(first.names):
            first = _ix.Index._from_columns(first._levels(), common)
        return first, [None] * len(frames)
    depth = first.nlevels
    for f in frames:
        if f._index.nlevels != depth:
            raise InvalidValueError("concat(axis=1): the inputs' indexes have different "
                                    "numbers of levels")
        if not f._index.is_unique:
            raise InvalidValueError("concat(axis=1): aligning rows needs unique labels in "
                                    "every input (reindexing only valid with uniquely valued "
                                    "Index objects)")
    lv = list(range(depth))
    names = [f"l{i}" for i in lv]

    def table(index):
        return _core.table_from_columns(index._levels(), names)

    result = table(first)
    for f in frames[1:]:
        other = table(f._index)
        if join == "inner":
            left, _ = _core.join_indices(result, other, lv, lv, "inner", False)
            result = _core.take(result, left)
        else:  # the labels result lacks, in their order, appended
            _, right = _core.join_indices(other, result, lv, lv, "left", False)
            missing = _core.isnull(right)
            if missing.null_count == 0 and _core.stat(missing, "any"):
                result = _concat_tables(result, _core.filter(other, missing), names)
    labels = _ix.Index._from_columns([result.column(i) for i in lv], common)
    if sort:
        order = _core.sort_indices(result, lv, [True] * depth, False)
        result = _core.take(result, order)
        labels = _ix.Index._from_columns([result.column(i) for i in lv], common)
    positions = []
    for f in frames:
        _, right = _core.join_indices(result, table(f._index), lv, lv, "left", False)
        positions.append(right)
    return labels, positions


def _concat_tables(a, b, names):
    cols = [_concat_columns([a.column(i), b.column(i)], "index labels")
            for i in range(a.num_columns)]
    return _core.table_from_columns(cols, names)

