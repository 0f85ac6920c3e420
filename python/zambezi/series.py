"""zambezi.Series: one named, immutable engine column.

A Series wraps a ``_core.Column`` and a name.  Reductions run in C with the
GIL released; ``to_numpy`` shares memory with the engine where it can.
"""

from zambezi import _convert, _core, _format
from zambezi._compute import SeriesOps
from zambezi.accessors import SeriesExtras
from zambezi._stats import SeriesStats, min_max
from zambezi.errors import InvalidValueError, UnsupportedError, ZambeziIndexError


class Series(SeriesOps, SeriesStats, SeriesExtras):
    """A named column of one dtype on one device (the CPU or a GPU)."""

    __slots__ = ("_col", "_name")

    def __init__(self, data=None, name=None, dtype=None):
        if data is None:
            data = []
        if name is None and isinstance(data, Series):
            name = data.name
        if name is None and _convert._is_pandas(data, "Series") and isinstance(data.name, str):
            name = data.name
        self._col = _convert.to_column(data, name=name, dtype=dtype)
        self._name = name

    @classmethod
    def _from_column(cls, col, name=None):
        s = object.__new__(cls)
        s._col = col
        s._name = name
        return s

    # -- properties --------------------------------------------------------
    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        """The dtype name: 'int64', 'string', 'timestamp[us, tz=UTC]' ..."""
        return self._col.dtype

    @property
    def device(self):
        """'cpu' or 'cuda:N'."""
        return self._col.device

    @property
    def null_count(self):
        return self._col.null_count

    @property
    def shape(self):
        return (self._col.length,)

    def __len__(self):
        return self._col.length

    def rename(self, name):
        return Series._from_column(self._col, name)

    # -- reductions (in C, GIL released) -----------------------------------
    def sum(self):
        return self._col.reduce("sum")

    def min(self):
        """Smallest value (numbers, strings byte-wise, dates, timestamps)."""
        return min_max(self._col, False)

    def max(self):
        """Largest value (numbers, strings byte-wise, dates, timestamps)."""
        return min_max(self._col, True)

    def mean(self):
        return self._col.reduce("mean")

    def count(self):
        """Number of non-null values."""
        return self._col.reduce("count")

    # -- selection ---------------------------------------------------------
    def head(self, n=5):
        return self[: max(n, 0)] if n >= 0 else self[: max(len(self) + n, 0)]

    def tail(self, n=5):
        length = len(self)
        if n >= 0:
            return self[max(length - n, 0):]
        return self[min(-n, length):]

    def __getitem__(self, key):
        length = self._col.length
        if isinstance(key, Series) or (not isinstance(key, (int, slice, str))
                                       and hasattr(key, "__len__")):
            return self._filter(key)  # boolean mask (see _compute.SeriesOps)
        if isinstance(key, slice):
            start, stop, step = key.indices(length)
            if step != 1:
                raise UnsupportedError(
                    f"Series slices with a step ({step}) are not supported; "
                    "only contiguous row ranges (zero-copy)")
            return Series._from_column(self._col.slice(start, max(stop - start, 0)),
                                       self._name)
        if isinstance(key, int) and not isinstance(key, bool):
            i = key + length if key < 0 else key
            if not 0 <= i < length:
                raise ZambeziIndexError(f"row {key} is out of range for {length} rows")
            return self._col.slice(i, 1).to_pylist()[0]
        raise InvalidValueError(
            f"Series[...] takes an int or a slice, not {type(key).__name__}")

    # -- devices -----------------------------------------------------------
    def to(self, device):
        """The same values on another device: 'cpu', 'cuda' or 'cuda:N'."""
        return Series._from_column(self._col.to_device(device), self._name)

    # -- conversion --------------------------------------------------------
    def to_numpy(self):
        """numpy array: a zero-copy read-only view for fixed-width data without
        nulls; float64 with NaN for numbers with nulls; object arrays (None for
        nulls) for strings, categories and dates."""
        return _convert.to_numpy(self._col)

    def __array__(self, dtype=None, copy=None):
        arr = self.to_numpy()
        if dtype is not None:
            arr = arr.astype(dtype)
        elif copy:
            arr = arr.copy()
        return arr

    def to_list(self):
        return self._col.to_pylist()

    tolist = to_list

    def to_pandas(self):
        return _convert.column_to_pandas(self._col, self._name)

    def to_arrow(self):
        try:
            import pyarrow as pa
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("Series.to_arrow() needs pyarrow: pip install pyarrow") from e
        return pa.array(self)

    def __arrow_c_schema__(self):
        return self._col.__arrow_c_schema__(name=self._name)

    def __arrow_c_array__(self, requested_schema=None):
        return self._col.__arrow_c_array__(requested_schema, name=self._name)

    def __repr__(self):
        return _format.series_repr(self._col, self._name)

    def __iter__(self):
        return iter(self.to_list())
