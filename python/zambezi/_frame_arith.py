"""DataFrame operators, as pandas has them (the ``FrameArith`` mixin):

- arithmetic ``+ - * / // % **`` (and reflected), comparisons
  ``== != < <= > >=``, logical ``& | ^`` and unary ``-``, ``+``, ``~``,
  ``abs()`` between a frame and a scalar, a list or array, a Series or
  another frame;
- the methods with an axis and a fill value: ``add``, ``sub``, ``mul``,
  ``div``/``truediv``, ``floordiv``, ``mod``, ``pow``, their reflected
  ``radd`` ..., and ``eq``, ``ne``, ``lt``, ``le``, ``gt``, ``ge``;
- ``equals``.

Alignment follows pandas (zambezi._align): a frame and a frame are matched
on their row labels (an outer join, unless the indexes are the same object
or equal) and on their column names (the sorted union when the names
differ; a column one side lacks gives an all-missing float64 column, False
for ``==``-style methods, True for ``ne``).  A Series is matched to the
column names (``axis="columns"``, the operators' default) or to the row
labels (``axis="index"``).  The comparison operators (``==`` ...) do not
align, as in pandas: they raise unless both sides have the same labels
(the methods ``eq`` ... align).

Every result column comes from the Series operation of zambezi._compute on
one column (one engine call per column); nothing here loops over rows.
Differences from pandas: those of zambezi._compute; a Series matched to the
columns must have str labels (the column names), without repeats.
"""

import numpy as np

from zambezi import _align, _base, _convert, _core, _labels
from zambezi._compute import _BINOPS, _missing_mask, refuse_nat_order
from zambezi._dtypes import is_scalar, py_scalar
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

_COMPARISONS = frozenset(["eq", "ne", "lt", "le", "gt", "ge"])
_LOGICAL = frozenset(["and", "or", "xor"])


def _axis(axis, what):
    if axis in (None, 1, "columns"):
        return 1
    if axis in (0, "index", "rows"):
        return 0
    raise InvalidValueError(f"{what}: axis must be 0, 1, 'index' or 'columns', not {axis!r}")


def _missing_result(op, n, device):
    """The column of a label only one side has: pandas' all-NaN float64
    (for arithmetic and logical operators), False for the comparison
    methods (True for ``ne``)."""
    if op in _COMPARISONS:
        return _align.broadcast(_core.column_from_sequence([op == "ne"]), n, device)
    return _align.all_null(n, device)


class FrameArith:
    """Operators and ``equals`` of zambezi.DataFrame (a mixin)."""

    __slots__ = ()
    __hash__ = None  # __eq__ returns a frame

    # -- the one path every operator takes -----------------------------
    def _series(self, col, name, index):
        return self._constructor_sliced._from_column(col, name, index)

    def _pairwise(self, pairs, names, index, op, sym, reflected, fill_value=None, gaps=None):
        """A frame of column-by-column results: pairs are (left column or
        None, right column / scalar or None) per result column."""
        n = len(index)
        dev = self._table.device
        out = []
        for nm, (a, b) in zip(names, pairs):
            if a is None or b is None:
                if fill_value is None or (a is None and b is None):
                    out.append(_missing_result(op, n, dev))
                    continue
                a = _align.all_null(n, dev) if a is None else a
                b = _align.all_null(n, dev) if b is None else b
            if fill_value is not None and isinstance(b, _core.Column):
                a, b = _align.fill_pair(a, b, fill_value)
            left = self._series(a, nm, index)
            right = self._series(b, nm, index) if isinstance(b, _core.Column) else b
            res = getattr(left, _DUNDER[op] if not reflected else _RDUNDER[op])(right)._col
            if gaps is not None and gaps.get(nm) is not None:
                res = _align.logical_gaps(res, op, *gaps[nm])
            out.append(res)
        result = self._constructor._wrap(_core.table_from_columns(out, list(names)), index)
        if list(names) == list(self._table.names):
            # the same columns: the same labels (an int label stays an int)
            _labels.attach(result, _labels.labels(self))
        return result

    def _rows_for(self, other_index, op, right_cols):
        """self's columns and right_cols matched on row labels: (index,
        left columns, right columns)."""
        cols, names = self._cols()
        if _align.same_labels(self._index, other_index):
            return self._index, cols, right_cols, None
        index, lpos, rpos = _align.join_indexes(self._index, other_index, "DataFrame alignment")
        lt = [_align.take_side(c, lpos, op) for c in cols]
        rt = [_align.take_side(c, rpos, op, right=True) for c in right_cols]
        # the left operand's gaps, for the logical operators (_align.logical_gaps)
        gaps = {nm: (c, lpos) for nm, c in zip(names, cols)} if op in _LOGICAL else None
        return index, lt, rt, gaps

    def _binary(self, other, op, sym, reflected=False, axis=None, fill_value=None,
                flex=False):
        what = f"DataFrame {sym} {type(other).__name__}"
        names = self._table.names
        if is_scalar(other):
            cols, _ = self._cols()
            for c, nm in zip(cols, names):   # as Series: pd.NaT is a datetime there
                refuse_nat_order(c.dtype, other, op, sym, f"column {nm!r}")
            if fill_value is not None:  # pandas fills the frame's missing values first
                fill = py_scalar(fill_value)
                cols = [_core.column_where(c, _missing_mask(c), fill, mask=True)
                        if c.null_count or c.dtype in ("float32", "float64") else c
                        for c in cols]
            return self._pairwise([(c, py_scalar(other)) for c in cols], names, self._index,
                                  op, sym, reflected)
        if _base.is_frame(other):
            return self._with_frame(other, op, sym, reflected, fill_value, flex)
        if _base.is_series(other):
            if fill_value is not None:
                raise UnsupportedError(
                    f"{what}: fill_value is not supported with a Series (pandas raises too)")
            if _axis(axis, what) == 0:
                return self._with_row_series(other, op, sym, reflected, flex)
            return self._with_column_series(other, op, sym, reflected, flex)
        if isinstance(other, np.ndarray) and other.ndim == 2:
            if other.shape != self.shape:
                raise InvalidValueError(
                    f"{what}: the array has shape {other.shape}, the frame {self.shape}")
            cols, _ = self._cols()
            rc = [_convert.to_column(np.ascontiguousarray(other[:, i]))
                  for i in range(other.shape[1])]
            return self._pairwise(list(zip(cols, rc)), names, self._index, op, sym, reflected,
                                  fill_value)
        if isinstance(other, (list, tuple, np.ndarray)):
            vals = list(other)
            cols, _ = self._cols()
            if _axis(axis, what) == 0:
                col = _convert.column_of_length(other, len(self), what)
                return self._pairwise([(c, col) for c in cols], names, self._index, op, sym,
                                      reflected, fill_value)
            if len(vals) != len(names):
                raise InvalidValueError(
                    f"{what}: {len(vals)} values for {len(names)} columns (a list is matched "
                    "to the columns, one value each)")
            return self._pairwise([(c, py_scalar(v)) for c, v in zip(cols, vals)], names,
                                  self._index, op, sym, reflected)
        raise DTypeError(f"unsupported operand for DataFrame {sym}: {type(other).__name__}")

    def _with_frame(self, other, op, sym, reflected, fill_value, flex):
        lnames, rnames = self._table.names, other._table.names
        if op in _COMPARISONS and not flex and not (
                lnames == rnames and _align.same_labels(self._index, other._index)):
            raise InvalidValueError(
                "Can only compare identically-labeled (both index and columns) DataFrame "
                "objects")
        rcols, _ = other._cols()
        index, lt, rt, gaps = self._rows_for(other._index, op, rcols)
        if lnames == rnames:
            names = lnames
            pairs = list(zip(lt, rt))
        else:
            names = sorted(set(lnames) | set(rnames))
            lmap, rmap = dict(zip(lnames, lt)), dict(zip(rnames, rt))
            pairs = [(lmap.get(nm), rmap.get(nm)) for nm in names]
        return self._pairwise(pairs, names, index, op, sym, reflected, fill_value, gaps)

    def _with_row_series(self, other, op, sym, reflected, flex):
        if op in _COMPARISONS and not flex and not _align.same_labels(self._index,
                                                                        other._index):
            raise InvalidValueError(
                "Operands are not aligned: the Series' labels differ from the frame's rows "
                "(align them first, or use the eq/ne/... methods)")
        index, lt, rt, gaps = self._rows_for(other._index, op, [other._col])
        return self._pairwise([(c, rt[0]) for c in lt], self._table.names, index, op, sym,
                              reflected, None, gaps)

    def _with_column_series(self, other, op, sym, reflected, flex):
        if other._index.nlevels != 1:
            raise UnsupportedError("a Series with a MultiIndex cannot be matched to columns")
        labels = other._index.to_list()
        if any(not isinstance(v, str) for v in labels):
            raise DTypeError(
                f"DataFrame {sym} Series: the Series is matched to the column names, so its "
                "labels must be str (use axis='index' to match it to the rows)")
        if len(set(labels)) != len(labels):
            raise UnsupportedError(
                f"DataFrame {sym} Series: the Series' labels repeat; they are matched to the "
                "column names, which are unique")
        lnames = self._table.names
        if op in _COMPARISONS and not flex and labels != lnames:
            raise InvalidValueError(
                "Operands are not aligned: the Series' labels differ from the column names "
                "(align them first, or use the eq/ne/... methods)")
        names = lnames if labels == lnames else sorted(set(lnames) | set(labels))
        cols = dict(zip(lnames, self._cols()[0]))
        pos = {v: i for i, v in enumerate(labels)}
        n = len(self)
        pairs = []
        for nm in names:
            if nm not in pos:
                pairs.append((cols.get(nm), None))
                continue
            one = other._col.slice(pos[nm], 1)
            value = (_align.broadcast(one, n, self._table.device) if one.null_count
                     else one.to_pylist()[0])
            pairs.append((cols.get(nm), value))
        return self._pairwise(pairs, names, self._index, op, sym, reflected)

    # -- unary ----------------------------------------------------------
    def _unary_each(self, fn):
        cols, names = self._cols()
        return self._like(_core.table_from_columns(
            [fn(self._sliced(c, nm))._col for c, nm in zip(cols, names)], names))

    def __neg__(self):
        return self._unary_each(lambda s: -s)

    def __pos__(self):
        return self._like(self._table)

    def __invert__(self):
        return self._unary_each(lambda s: ~s)

    def __abs__(self):
        return self._unary_each(lambda s: abs(s))

    # -- equals ---------------------------------------------------------
    def equals(self, other):
        """Whether other is a DataFrame with the same shape, column names,
        dtypes (a categorical's categories too), row labels and values,
        missing values in the same places (as pandas: a NaN equals a NaN).

        Examples
        --------
        >>> df = zb.DataFrame({"a": [1, None], "b": ["x", "y"]})
        >>> df.equals(df.copy()), df.equals(df.astype({"a": "float64"}))
        (True, False)
        >>> df.equals(zb.DataFrame({"a": [1, None], "b": ["x", "z"]}))
        False
        """
        if not _base.is_frame(other):
            return False
        if self.shape != other.shape or self._table.names != other._table.names:
            return False
        if not _align.same_labels(self._index, other._index):
            return False
        from zambezi._concat import _same_categories

        for a, b in zip(self._cols()[0], other._cols()[0]):
            if a.dtype != b.dtype or not same_values(a, b):
                return False
            if a.dtype == "category" and not _same_categories([a, b]):
                return False   # pandas compares the categories (and their order if ordered)
        return True


def same_values(a, b):
    """Whether two columns of one dtype hold the same values, missing
    values (nulls, NaN) in the same places."""
    if a.dtype.startswith("list<"):  # lists: row by row as Python lists (zambezi._lists)
        from zambezi import _lists

        return _lists.same(a, b)
    ma, mb = _missing_mask(a), _missing_mask(b)
    if _core.binary("ne", ma, mb).reduce("sum"):
        return False
    eq = _core.fill_null(_core.binary("eq", a, b), True)
    eq = _core.binary("or", eq, ma)
    return eq.reduce("sum") == eq.length


_DUNDER = {op: d for d, (op, _s) in _BINOPS.items()}
_RDUNDER = {op: "__r" + d[2:] for d, (op, _s) in _BINOPS.items()}
_RDUNDER.update({op: _DUNDER[op] for op in _COMPARISONS})


def _dunder(op, sym, reflected=False):
    def method(self, other):
        return self._binary(other, op, sym, reflected)

    method.__name__ = ("__r" if reflected else "__") + (
        [d for d, v in _BINOPS.items() if v[0] == op][0][2:])
    return method


_EXAMPLE_FRAME = '>>> df = zb.DataFrame({"a": [1, 2, None], "b": [4.0, 5.0, 6.0]})'
_FLEX = {
    # name: (op, symbol, reflected, example call, example output)
    "add": ("add", "+", False, "df.add(1)", "{'a': [2, 3, None], 'b': [5.0, 6.0, 7.0]}"),
    "sub": ("sub", "-", False, "df.sub([1, 2])", "{'a': [0, 1, None], 'b': [2.0, 3.0, 4.0]}"),
    "mul": ("mul", "*", False, "df.mul(df['b'], axis='index')",
            "{'a': [4.0, 10.0, None], 'b': [16.0, 25.0, 36.0]}"),
    "truediv": ("truediv", "/", False, "df.truediv(2)",
                "{'a': [0.5, 1.0, None], 'b': [2.0, 2.5, 3.0]}"),
    "floordiv": ("floordiv", "//", False, "df.floordiv(2)",
                 "{'a': [0, 1, None], 'b': [2.0, 2.0, 3.0]}"),
    "mod": ("mod", "%", False, "df.mod(2)", "{'a': [1, 0, None], 'b': [0.0, 1.0, 0.0]}"),
    "pow": ("pow", "**", False, "df.pow(2)", "{'a': [1, 4, None], 'b': [16.0, 25.0, 36.0]}"),
    "radd": ("add", "+", True, "df.radd(1)", "{'a': [2, 3, None], 'b': [5.0, 6.0, 7.0]}"),
    "rsub": ("sub", "-", True, "df.rsub(10)", "{'a': [9, 8, None], 'b': [6.0, 5.0, 4.0]}"),
    "rmul": ("mul", "*", True, "df.rmul(2)", "{'a': [2, 4, None], 'b': [8.0, 10.0, 12.0]}"),
    "rtruediv": ("truediv", "/", True, "df.rtruediv(12)",
                 "{'a': [12.0, 6.0, None], 'b': [3.0, 2.4, 2.0]}"),
    "rfloordiv": ("floordiv", "//", True, "df.rfloordiv(12)",
                  "{'a': [12, 6, None], 'b': [3.0, 2.0, 2.0]}"),
    "rmod": ("mod", "%", True, "df.rmod(9)", "{'a': [0, 1, None], 'b': [1.0, 4.0, 3.0]}"),
    "rpow": ("pow", "**", True, "df.rpow(2)", "{'a': [2, 4, None], 'b': [16.0, 32.0, 64.0]}"),
    "eq": ("eq", "==", False, "df.eq(2)",
           "{'a': [False, True, None], 'b': [False, False, False]}"),
    "ne": ("ne", "!=", False, "df.ne(2)", "{'a': [True, False, None], 'b': [True, True, True]}"),
    "lt": ("lt", "<", False, "df.lt(5)", "{'a': [True, True, None], 'b': [True, False, False]}"),
    "le": ("le", "<=", False, "df.le(5)", "{'a': [True, True, None], 'b': [True, True, False]}"),
    "gt": ("gt", ">", False, "df.gt(4)",
           "{'a': [False, False, None], 'b': [False, True, True]}"),
    "ge": ("ge", ">=", False, "df.ge(4)",
           "{'a': [False, False, None], 'b': [True, True, True]}"),
}


def _flex(name, op, sym, reflected, call, result):
    cmp = op in _COMPARISONS
    what = (f"other {sym} df" if reflected else f"df {sym} other")
    if cmp:
        def method(self, other, axis="columns", level=None):
            if level is not None:
                raise UnsupportedError(f"{name}: level is not supported")
            return self._binary(other, op, sym, reflected, axis, None, flex=True)
    else:
        def method(self, other, axis="columns", level=None, fill_value=None):
            if level is not None:
                raise UnsupportedError(f"{name}: level is not supported")
            return self._binary(other, op, sym, reflected, axis, fill_value, flex=True)

    method.__name__ = name
    if cmp:
        lead = f"Elementwise ``{what}`` (a bool frame), with an axis"
        gap = "False (True for ne)"
        extra = ""
    else:
        lead = f"Elementwise ``{what}``, with an axis and a fill value"
        gap = "a missing value"
        extra = ("  fill_value replaces a value missing on one side only\n"
                 "        (after alignment) before the operation.")
    method.__doc__ = f"""{lead}:
        other is a scalar, a list (one value per column), a Series (matched
        to the column names, or to the row labels with axis="index"), or a
        DataFrame (matched on row labels and column names; a label one
        side lacks gives {gap}).{extra}
        See zambezi._frame_arith.

        Examples
        --------
        {_EXAMPLE_FRAME}
        >>> {call}.to_dict("list")
        {result}
        """
    return method


for _name, (_op, _sym, _refl, _call, _res) in _FLEX.items():
    setattr(FrameArith, _name, _flex(_name, _op, _sym, _refl, _call, _res))
FrameArith.div = FrameArith.truediv
FrameArith.rdiv = FrameArith.rtruediv
FrameArith.subtract = FrameArith.sub
FrameArith.multiply = FrameArith.mul
FrameArith.divide = FrameArith.truediv
for _d, (_op, _sym) in _BINOPS.items():
    setattr(FrameArith, _d, _dunder(_op, _sym))
for _d in ("__radd__", "__rsub__", "__rmul__", "__rtruediv__", "__rfloordiv__", "__rmod__",
           "__rpow__", "__rand__", "__ror__", "__rxor__"):
    _op, _sym = _BINOPS["__" + _d[3:]]
    setattr(FrameArith, _d, _dunder(_op, _sym, True))
del _name, _op, _sym, _refl, _call, _res, _d
