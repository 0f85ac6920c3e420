"""dtypes and scalars: the one place a dtype argument is understood.

Every entry point that takes a dtype -- ``Series(data, dtype=)``,
``Series.astype`` / ``DataFrame.astype``, ``read_csv(dtype=)`` for all
columns or as a dict -- turns it into a canonical name with ``canonical``,
and hands only that name to the engine.  The extension ``zambezi._core``
accepts canonical names and nothing else:

    bool  int8 int16 int32 int64  uint8 uint16 uint32 uint64
    float32 float64  string  category  date32
    timestamp[s|ms|us|ns]  timestamp[UNIT, tz=ZONE]  duration[s|ms|us|ns]

and list<T> for a list column of any of these (T a list too: a list of
lists), which zambezi._lists.cast makes from a list column by casting its
elements.

What users may write instead (one table, ``_ALIASES``): pandas' names
("Int64", "boolean", "string", "category", "datetime64[ns]",
"datetime64[ms, UTC]" ...), short names ("int", "float", "str", "date"),
numpy dtypes and scalar types, pandas dtype objects, and the Python types
int, float, str, bool and object.  ``object`` (and numpy's "O") means
string: zambezi keeps text as strings, and an object column is what pandas
users get text in.  A timestamp keeps the unit it is given
("datetime64[ms]" is ``timestamp[ms]``); without one it is microseconds.

This module also turns numpy and pandas scalars into plain Python values
(``py_scalar``) and says what counts as a scalar (``is_scalar``).
"""

import datetime
import sys

import numpy as np

from zambezi.errors import DTypeError

# The names the engine takes (see the module docstring); timestamps are
# parsed separately since they carry a unit and a zone.
CANONICAL = frozenset([
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "string", "category", "date32",
])
# The number dtypes: bool counts as one, as in pandas' reductions.  Modules
# that ask "is this a number?" take these, not a list of their own.
INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOATS = ("float32", "float64")
NUMERIC = frozenset(("bool",) + INTEGERS + FLOATS)
UNITS = ("s", "ms", "us", "ns")
PER_SECOND = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}  # ticks of each unit a second
NS_PER = {unit: 10**9 // n for unit, n in PER_SECOND.items()}  # nanoseconds in one tick
DEFAULT_UNIT = "us"

# Every spelling of a dtype users write -> its canonical name.  Timestamps
# with a unit or a zone ("datetime64[ms]", "timestamp[ns, tz=UTC]") are
# parsed by _timestamp(); the bare names here mean microseconds.
# pandas' masked (nullable) dtypes; every zambezi dtype holds nulls, so
# each is the zambezi dtype of the same width.  zambezi._convert reads
# pandas columns of these dtypes, and shows integer and bool columns with
# nulls in them.
PANDAS_MASKED = {
    "Int8": "int8", "Int16": "int16", "Int32": "int32", "Int64": "int64",
    "UInt8": "uint8", "UInt16": "uint16", "UInt32": "uint32", "UInt64": "uint64",
    "Float32": "float32", "Float64": "float64", "boolean": "bool",
}
_ALIASES = {
    **PANDAS_MASKED,
    # short names and other libraries' names
    "int": "int64", "float": "float64", "double": "float64",
    "str": "string", "String": "string", "object": "string", "O": "string",
    "utf8": "string", "large_string": "string",
    "categorical": "category",
    "date": "date32", "date32[day]": "date32",
    "timestamp": f"timestamp[{DEFAULT_UNIT}]", "datetime": f"timestamp[{DEFAULT_UNIT}]",
    "datetime64": f"timestamp[{DEFAULT_UNIT}]",
    "duration": "duration[ns]", "timedelta": "duration[ns]", "timedelta64": "duration[ns]",
}
_PY_TYPES = {int: "int64", float: "float64", str: "string", bool: "bool", object: "string"}


def _timestamp(text):
    """'timestamp[UNIT]', 'timestamp[UNIT, tz=ZONE]', 'datetime64[UNIT]' or
    pandas' 'datetime64[UNIT, ZONE]' as the canonical name; None when text
    is not of that shape."""
    for prefix in ("timestamp[", "datetime64["):
        if text.startswith(prefix) and text.endswith("]"):
            break
    else:
        return None
    unit, comma, tz = text[len(prefix):-1].partition(",")
    unit, tz = unit.strip(), tz.strip()
    if tz.startswith("tz="):
        tz = tz[3:].strip()
    if unit not in UNITS or (comma and not tz):
        raise DTypeError(
            f"unknown dtype {text!r} (a timestamp takes a unit s, ms, us or ns and "
            "optionally a zone: 'timestamp[ms]', 'datetime64[ns, UTC]')")
    return f"timestamp[{unit}, tz={tz}]" if tz else f"timestamp[{unit}]"


def _duration(text):
    """'duration[UNIT]', 'timedelta64[UNIT]' or 'm8[UNIT]' as the canonical
    name; None when text is not of that shape."""
    for prefix in ("duration[", "timedelta64[", "m8[", "<m8["):
        if text.startswith(prefix) and text.endswith("]"):
            break
    else:
        return None
    unit = text[len(prefix):-1].strip()
    if unit not in UNITS:
        raise DTypeError(
            f"unknown dtype {text!r} (a duration takes a unit s, ms, us or ns: "
            "'duration[ns]', 'timedelta64[ns]')")
    return f"duration[{unit}]"


def duration_unit(name):
    """The unit of a canonical duration name, else None."""
    if name.startswith("duration["):
        return name[len("duration["):-1]
    return None


def _from_object(dtype):
    """The canonical name of a dtype given as an object (not a str)."""
    if isinstance(dtype, ListDtype):
        return dtype.name
    if pandas_categorical(dtype):  # pandas' or a categorical column's CategoricalDType
        return "category"
    if isinstance(dtype, type) and dtype in _PY_TYPES:
        return _PY_TYPES[dtype]
    if type(dtype).__module__.startswith("pandas"):  # pandas dtype objects
        tz = getattr(dtype, "tz", None)
        if tz is not None:
            return f"timestamp[{dtype.unit}, tz={tz}]"
        return canonical(str(dtype))
    try:
        npd = np.dtype(dtype)
    except TypeError:
        raise DTypeError(f"unknown dtype {dtype!r}") from None
    if npd.kind == "M":
        unit, _ = np.datetime_data(npd)
        if unit == "D":
            return "date32"
        return f"timestamp[{unit if unit in UNITS else DEFAULT_UNIT}]"
    if npd.kind == "m":
        unit, _ = np.datetime_data(npd)
        return f"duration[{unit if unit in UNITS else 'ns'}]"
    if npd.kind in "USO":
        return "string"
    return canonical(npd.name)


# pyarrow's names of element types inside 'list<item: T>' (where 'float'
# is float32, unlike zambezi's short name)
_ARROW_NAMES = {"float": "float32", "halffloat": None, "large_string": "string",
                "large_utf8": "string", "date32[day]": "date32"}


def _list(text):
    """'list<T>' (zambezi's name), pyarrow's 'list<item: T>' /
    'large_list<item: T>' as the canonical 'list<T>'; None when text is
    not of that shape."""
    for prefix in ("list<", "large_list<"):
        if text.startswith(prefix) and text.endswith(">"):
            break
    else:
        return None
    inner = text[len(prefix):-1].strip()
    if inner.startswith("item:"):  # pyarrow's field text: 'item: int64 not null'
        inner = inner[len("item:"):].strip()
        if inner.endswith(" not null"):
            inner = inner[: -len(" not null")].strip()
        if inner in _ARROW_NAMES:
            inner = _ARROW_NAMES[inner]
            if inner is None:
                raise DTypeError(f"unknown dtype {text!r} (half floats are not supported)")
    if not inner:
        raise DTypeError(f"unknown dtype {text!r} (a list dtype names its element type: "
                         "'list<int64>')")
    inner = canonical(inner)
    if inner == "category":
        raise DTypeError(f"dtype {text!r}: lists of categories are not supported")
    return f"list<{inner}>"


class ListDtype:
    """The dtype of a list column: each row a list (or null) of values of
    one element type, stored as Arrow's large_list.  Its text is
    ``list<T>``, which every dtype argument also takes, as it takes
    pyarrow's ``pd.ArrowDtype(pa.list_(T))``.  pandas has no such dtype (it
    holds lists in object columns): ``to_pandas()`` gives those.

    Parameters
    ----------
    value_type : dtype
        The element type (any dtype spelling, a ListDtype too).

    Examples
    --------
    >>> zb.ListDtype("int64")
    ListDtype(int64)
    >>> s = zb.Series([[1, 2], None], dtype=zb.ListDtype(float))
    >>> s.dtype == zb.ListDtype("float64")
    True
    >>> str(zb.ListDtype(zb.ListDtype("str")))
    'list<list<string>>'
    """

    __slots__ = ("value_type",)

    def __init__(self, value_type):
        self.value_type = canonical(value_type)
        if self.value_type == "category":
            raise DTypeError("ListDtype: lists of categories are not supported")

    @property
    def name(self):
        """The dtype's text, 'list<T>'.

        Examples
        --------
        >>> zb.ListDtype(float).name
        'list<float64>'
        """
        return f"list<{self.value_type}>"

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"ListDtype({self.value_type})"

    def __eq__(self, other):
        if isinstance(other, (str, ListDtype)):
            try:
                return canonical(other) == self.name
            except DTypeError:
                return False
        return NotImplemented

    def __hash__(self):
        return hash(self.name)


def canonical(dtype):

    """The canonical (engine) name of a dtype: a name ('int64', 'Int64',
    'str', 'object', 'category', 'date', 'datetime64[ns]',
    'timestamp[us, tz=UTC]' ...), a numpy dtype or scalar type, a pandas
    dtype, or a Python type (int, float, str, bool, object).  Raises
    DTypeError ('unknown dtype ...') for anything else."""
    if not isinstance(dtype, str):
        return _from_object(dtype)
    if dtype in CANONICAL:
        return dtype
    name = _ALIASES.get(dtype)
    if name is not None:
        return name
    name = _timestamp(dtype)
    if name is not None:
        return name
    name = _duration(dtype)
    if name is not None:
        return name
    if dtype.endswith("[pyarrow]") and dtype.startswith(("list<", "large_list<")):
        dtype = dtype[: -len("[pyarrow]")]  # pd.ArrowDtype(pa.list_(...))
    name = _list(dtype)
    if name is not None:
        return name
    raise DTypeError(f"unknown dtype {dtype!r}")


def timestamp_parts(name):
    """(unit, zone or None) of a canonical timestamp name, else None."""
    if not name.startswith("timestamp["):
        return None
    unit, _, tz = name[len("timestamp["):-1].partition(", tz=")
    return unit, (tz or None)


# --------------------------------------------------------------------------
# scalars
# --------------------------------------------------------------------------

# time units, coarsest first (pandas keeps the finer of two)
UNIT_RANK = {"s": 0, "ms": 1, "us": 2, "ns": 3}


def time_unit(dtype):
    """The unit of a timestamp or duration dtype name ("timestamp[us, tz=UTC]"
    -> "us"), else None."""
    if not dtype.startswith(("timestamp[", "duration[")):
        return None
    return dtype[dtype.index("[") + 1:].split(",")[0].rstrip("]")


def scalar_unit(x):
    """The unit pandas gives a datetime or timedelta scalar: its own
    (pd.Timestamp, pd.Timedelta, numpy's; days and coarser are seconds),
    microseconds for Python's; None for anything else."""
    unit = getattr(x, "unit", None)
    if isinstance(unit, str) and unit in UNIT_RANK:
        return unit
    if isinstance(x, (np.datetime64, np.timedelta64)):
        unit = np.datetime_data(x.dtype)[0]
        return unit if unit in UNIT_RANK else "s"
    if isinstance(x, (datetime.datetime, datetime.timedelta)):
        return "us"
    return None


def py_scalar(value):
    """A plain Python scalar for numpy / pandas scalars (NA -> None)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    tname = type(value).__name__
    if tname in ("NAType", "NaTType"):
        return None
    if isinstance(value, np.generic):
        if isinstance(value, np.datetime64):
            if np.isnat(value):
                return None
            unit, _ = np.datetime_data(value.dtype)
            if unit == "ns":   # pd.Timestamp keeps nanoseconds, datetime.datetime does not
                try:
                    import pandas as pd
                except ImportError:
                    pass
                else:
                    return pd.Timestamp(value)
            return value.astype("datetime64[D]" if unit == "D" else "datetime64[us]").item()
        if isinstance(value, np.timedelta64):
            if np.isnat(value):
                return None
            try:  # pd.Timedelta keeps nanoseconds, datetime.timedelta does not
                import pandas as pd
            except ImportError:
                return value.astype("timedelta64[us]").item()
            return pd.Timedelta(value)
        return value.item()
    return value


def is_missing_scalar(value):
    """Whether a scalar is a missing value: None, NaN, pandas' NA or NaT."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, (float, np.floating)) and value != value


def is_scalar(value):
    """Whether value is one value (a number, str, bool, date, None, NA),
    not a column."""
    if isinstance(value, (bool, int, float, str, np.generic)) or value is None:
        return True
    return isinstance(value, (datetime.date, datetime.timedelta)) or type(value).__name__ in (
        "NAType", "NaTType")


def _value_kind(x):
    """"bool", "number", "time" (timestamps and dates) or "span" (durations)
    for a dtype name, an engine column (its dtype) or a scalar of those
    kinds (NaN and pd.NaT: None, a missing value); else None."""
    if isinstance(x, (bool, np.bool_)):
        return "bool"
    if isinstance(x, np.timedelta64):   # numpy counts it among its integers
        return "span"
    if isinstance(x, np.datetime64):
        return "time"
    if type(x).__name__ == "NaTType":
        return None   # pd.NaT: a missing time or duration
    if isinstance(x, datetime.timedelta):
        return "span"
    if isinstance(x, datetime.datetime):
        return "time"
    if isinstance(x, (int, float, np.number)):
        return "number" if x == x else None   # NaN: a missing value
    x = getattr(x, "dtype", x)
    if isinstance(x, str):
        if x == "bool":
            return "bool"
        if x.startswith(("int", "uint", "float")):
            return "number"
        if x.startswith(("timestamp", "date")):
            return "time"
        if x.startswith("duration"):
            return "span"
    return None


# (value kind, column kind) pairs pandas keeps apart in an object column
_OBJECT_MIXES = frozenset([("bool", "number"), ("number", "bool"), ("number", "time"),
                           ("bool", "time"), ("number", "span"), ("bool", "span"),
                           ("span", "time"), ("time", "span")])


def refuse_kind_mix(dtype, value, what):
    """DTypeError when value (a scalar or an engine column) is a bool for a
    number column of dtype, a number for a bool one, or a number or bool
    for a timestamp, date or duration one: pandas keeps both kinds in an
    object column there (fillna(True) on floats holds True, not 1.0;
    fillna(0) on times holds 0, not 1970-01-01), which zambezi has no dtype
    for (the engine would convert the value)."""
    have, want = _value_kind(value), _value_kind(dtype)
    if (have, want) in _OBJECT_MIXES:
        name = {"time": "datetime", "span": "timedelta"}.get(have, have)
        raise DTypeError(f"{what}: a {name} value for a column of dtype {dtype} (pandas "
                         f"gives an object column of both kinds)")


# -- dtype names with numpy's attributes ---------------------------------------
# Dask (and other code written for pandas) reads ``dtype.kind``,
# ``.itemsize``, ``.name`` and ``.type`` of the dtypes a frame reports.
# zambezi reports dtype names; DType is such a name (a str: equal to it,
# hashed and shown like it, accepted wherever a name is) that also answers
# those attributes as numpy / pandas would for the pandas dtype the column
# becomes (strings and categories: kind "O", as pandas' str and category
# dtypes).

_KIND = {"bool": "b", "int8": "i", "int16": "i", "int32": "i", "int64": "i",
         "uint8": "u", "uint16": "u", "uint32": "u", "uint64": "u",
         "float32": "f", "float64": "f", "date32": "M"}
_ITEMSIZE = {"bool": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "uint8": 1,
             "uint16": 2, "uint32": 4, "uint64": 8, "float32": 4, "float64": 8,
             "date32": 8}


class DType(str):
    """A zambezi dtype name (``"int64"``, ``"string"``,
    ``"timestamp[us, tz=UTC]"`` ...) with numpy's dtype attributes
    ``kind``, ``itemsize``, ``name`` and ``type``.

    Examples
    --------
    >>> d = zb.Series([1, 2]).dtype
    >>> d == "int64", d.kind, d.itemsize, d.name
    (True, 'i', 8, 'int64')
    >>> zb.Series(["a"]).dtype.kind
    'O'
    """

    __slots__ = ()

    @property
    def name(self):
        """The dtype's name (the str itself).

        Examples
        --------
        >>> zb.Series([0.5]).dtype.name
        'float64'
        """
        return str(self)

    @property
    def kind(self):
        """numpy's kind letter: b, i, u, f, M (dates, timestamps), m
        (durations), O (strings, categories, lists).

        Examples
        --------
        >>> zb.Series([1]).dtype.kind, zb.Series(["a"]).dtype.kind
        ('i', 'O')
        """
        s = str(self)
        if s in _KIND:
            return _KIND[s]
        if s.startswith("timestamp"):
            return "M"
        if s.startswith("duration"):
            return "m"
        return "O"

    @property
    def itemsize(self):
        """Bytes per value as numpy holds them (8 for the object kinds).

        Examples
        --------
        >>> zb.Series([1]).astype("int32").dtype.itemsize
        4
        """
        s = str(self)
        return _ITEMSIZE.get(s, 8)

    @property
    def type(self):
        """numpy's scalar type (``np.int64`` ...; ``np.datetime64``,
        ``np.timedelta64``; ``object`` for the object kinds).

        Examples
        --------
        >>> zb.Series([1.5]).dtype.type
        <class 'numpy.float64'>
        """
        s = str(self)
        if s in _KIND and s != "date32":
            return np.dtype(s).type
        return {"M": np.datetime64, "m": np.timedelta64}.get(self.kind, object)

    def __reduce__(self):
        return (DType, (str(self),))

    def __eq__(self, other):
        # numpy's dtype equals its scalar type and the Python number types
        # (np.dtype("int64") == np.int64 == int): so does this one, as
        # pandas code compares ``s.dtype == np.float64`` / ``== float``
        if isinstance(other, type) and (other in (int, float, bool) or
                                        issubclass(other, (np.number, np.bool_))):
            try:
                return canonical(other) == str(self)
            except DTypeError:
                return False
        return str.__eq__(self, other)

    def __ne__(self, other):
        same = self.__eq__(other)
        return same if same is NotImplemented else not same

    __hash__ = str.__hash__


_DTYPES = {}


def dtype_object(name):
    """The DType for a dtype name (one object per name)."""
    d = _DTYPES.get(name)
    if d is None:
        d = _DTYPES[name] = DType(name)
    return d


_CATEGORICAL_CLASS = []


def _categorical_class():
    """CategoricalDType, made on first use (it needs pandas)."""
    if not _CATEGORICAL_CLASS:
        import pandas as pd

        class CategoricalDType(pd.CategoricalDtype):
            """The dtype of a categorical column: a ``pandas.CategoricalDtype``
            whose ``categories`` (a pandas Index, made when first asked for)
            and ``ordered`` are the column's, so that code testing
            ``isinstance(s.dtype, pd.CategoricalDtype)`` (seaborn, Dask's
            plans) or reading ``s.dtype.categories`` sees what pandas
            gives.  Equal to ``"category"`` (as pandas' is), and with the
            str methods of that name that zambezi's other dtypes have as
            str objects (``startswith`` ...).

            Examples
            --------
            >>> d = zb.Series(["b", "a", "b"]).astype("category").dtype
            >>> d == "category", isinstance(d, pd.CategoricalDtype), list(d.categories)
            (True, True, ['a', 'b'])
            """

            @property
            def _categories(self):
                cats = self.__dict__.get("_cats")
                if cats is None:
                    from zambezi.index import Index

                    col = self.__dict__["_zb_col"]
                    if col.device != "cpu":
                        col = col.to_device("cpu")
                    cats = Index._from_columns([col.dictionary], [None]).to_pandas()
                    self.__dict__["_cats"] = cats
                return cats

            @property
            def _ordered(self):
                return bool(self.__dict__["_zb_col"].ordered)

            def __getattr__(self, name):
                # str's methods (startswith, split ...) of the name
                if name.startswith("_") or not hasattr(str, name):
                    raise AttributeError(name)
                return getattr("category", name)

            def __getitem__(self, key):
                return "category"[key]

            def __len__(self):
                return len("category")

            def __reduce__(self):
                return (pd.CategoricalDtype, (self.categories, self.ordered))

        _CATEGORICAL_CLASS.append(CategoricalDType)
    return _CATEGORICAL_CLASS[0]


def column_dtype(col):
    """The DType of engine column col: for a categorical, with pandas
    installed, a CategoricalDType carrying its categories."""
    if col.dtype == "category":
        try:
            cls = _categorical_class()
        except ImportError:
            return dtype_object("category")
        d = object.__new__(cls)
        d.__dict__["_zb_col"] = col
        return d
    return dtype_object(col.dtype)


def pandas_categorical(dtype):
    """Whether dtype is a pandas CategoricalDtype (a categorical column's
    CategoricalDType too), without importing pandas."""
    pd = sys.modules.get("pandas")
    return pd is not None and isinstance(dtype, pd.CategoricalDtype)


