"""Series.str and Series.dt, and the elementwise extras of Series (clip,
round, between, where, mask, replace, sample, pipe, copy; the last four
share their work with DataFrame's in zambezi._frame_extra).

Every method is one call into ``zambezi._core`` (C, GIL released), or
numpy on a categorical's codes; nothing here loops over rows.  Names and arguments follow pandas.  Where zambezi
differs from pandas it says so in the docstring:

- regular expressions (contains, match, fullmatch, count, replace,
  extract, split) run on PCRE2 with Python's re syntax: see
  zambezi._str_patterns; null rows give null where pandas' str dtype
  gives False / -1; the other text methods (title, pad, find, is*...)
  follow Arrow's Unicode rules, as pandas' str dtype: see
  zambezi._str_text;
- ``lower``/``upper`` use the Unicode simple case mapping, one character to
  one, as pandas' pyarrow-backed strings do ("ß".upper() is "ẞ"; pandas'
  object strings, through Python, give "SS");
- ``dt`` fields of a timestamp with a named timezone other than UTC raise
  ``UnsupportedError`` (no timezone database); UTC and fixed offsets such as
  "+05:30" work;
- ``where``/``mask`` treat a null in ``cond`` as "replace the row", as
  pandas does for a nullable boolean condition;
- ``between`` follows pandas' comparisons (see zambezi._compute): a missing
  value is False, except in an integer or bool column with nulls (null).
"""

import datetime

import numpy as np

from zambezi import _align, _base, _core, _dt_methods, _dtypes, _frame_extra, _indexing
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError
from zambezi._compute import pandas_comparison_nulls, time_operand
from zambezi._str_patterns import _PatternMethods
from zambezi._str_text import _TextMethods


class AccessorError(DTypeError, AttributeError):
    """``.str`` on a non-string Series or ``.dt`` on a non-date one: a
    DTypeError that is also an AttributeError, as pandas raises, so
    ``hasattr(s, "str")`` is False for them.

    Examples
    --------
    >>> zb.Series([1, 2]).str
    Traceback (most recent call last):
        ...
    zambezi.accessors.AccessorError: Can only use .str accessor with string values, not int64
    (column None)
    >>> hasattr(zb.Series([1, 2]), "str"), isinstance(zb.accessors.AccessorError(), TypeError)
    (False, True)
    """


class StringMethods(_PatternMethods, _TextMethods):
    """Vectorised string functions of a string or categorical Series
    (``Series.str``).  Lengths and positions count characters (code
    points); nulls stay null.  Methods of a categorical Series give string
    Series.

    Examples
    --------
    >>> s = zb.Series([" Lusaka ", "Maun", None])
    >>> s.str.strip().str.upper()
    0    LUSAKA
    1      MAUN
    2      <NA>
    dtype: string
    """

    __slots__ = ("_s",)

    def __init__(self, series):
        dtype = series.dtype
        if dtype == "category" and series._col.dictionary.dtype != "string":
            dtype = f"category of {series._col.dictionary.dtype}"  # as pandas: not text
        if dtype not in ("string", "category"):
            raise AccessorError(
                f"Can only use .str accessor with string values, not {dtype} "
                f"(column {series.name!r})")
        self._s = series

    def _wrap(self, col):
        return self._s._like(col)

    def _op(self, op, **kw):
        return self._wrap(_core.str_op(self._s._col, op, **kw))

    @staticmethod
    def _no_na(na):
        if na is not None:
            raise UnsupportedError("str methods: na= is not supported; use fillna on the result")

    # -- tests ------------------------------------------------------------
    def len(self):
        """Characters per row (int64), counting code points, not bytes.

        Examples
        --------
        >>> zb.Series(["Maun", "Élan", None]).str.len().to_list()
        [4, 4, None]
        """
        return self._op("len")

    def startswith(self, pat, na=None):
        """True where the row starts with the literal ``pat`` (a str, or a
        tuple of them: any).

        Examples
        --------
        >>> zb.Series(["Maun", "Lusaka", None]).str.startswith("M").to_list()
        [True, False, None]
        """
        self._no_na(na)
        return self._affix("startswith", pat)

    def endswith(self, pat, na=None):
        """True where the row ends with the literal ``pat`` (a str, or a
        tuple of them: any).

        Examples
        --------
        >>> zb.Series(["Maun", "Lusaka", None]).str.endswith("ka").to_list()
        [False, True, None]
        """
        self._no_na(na)
        return self._affix("endswith", pat)

    def _affix(self, how, pat):
        """startswith / endswith of a str, or of a tuple of them (any
        matches, as Python's str methods)."""
        pats = pat if isinstance(pat, tuple) and pat else (pat,)
        if not all(isinstance(p, str) for p in pats):
            raise DTypeError(f"str.{how}: pat must be a str or a tuple of str, not "
                             f"{type(pat).__name__}")
        out = None
        for p in pats:
            one = self._op(how, pat=p)
            out = one if out is None else (out | one)
        return out

    # -- transforms -------------------------------------------------------
    def lower(self):
        """Letters to lower case by the Unicode simple case mapping (one
        character to one, as pandas' pyarrow-backed strings do; Python's
        str.lower maps "İ" to two characters, here to "i").  The tables
        follow the Unicode version of the Python that generated them
        (src/cpu/case_map.h).

        Examples
        --------
        >>> zb.Series(["MAUN", "ÉLAN", "ΣΟΦΙΑ", None]).str.lower().to_list()
        ['maun', 'élan', 'σοφια', None]
        """
        return self._op("lower")

    def upper(self):
        """Letters to upper case by the Unicode simple case mapping (one
        character to one, as pandas' pyarrow-backed strings do: "ß" becomes
        "ẞ", where Python's str.upper gives "SS").

        Examples
        --------
        >>> zb.Series(["maun", "élan", "straße", None]).str.upper().to_list()
        ['MAUN', 'ÉLAN', 'STRAẞE', None]
        """
        return self._op("upper")

    def strip(self, to_strip=None):
        """Remove whitespace (Python's str.isspace), or the characters in
        ``to_strip``, from both ends.

        Examples
        --------
        >>> zb.Series(["  Maun ", None]).str.strip().to_list()
        ['Maun', None]
        >>> zb.Series(["xxaxx"]).str.strip("x").to_list()
        ['a']
        """
        return self._op("strip", pat=to_strip)

    def lstrip(self, to_strip=None):
        """Remove whitespace, or the characters in ``to_strip``, from the start.

        Examples
        --------
        >>> zb.Series(["  a  ", "xxaxx"]).str.lstrip().to_list()
        ['a  ', 'xxaxx']
        >>> zb.Series(["xxaxx"]).str.lstrip("x").to_list()
        ['axx']
        """
        return self._op("lstrip", pat=to_strip)

    def rstrip(self, to_strip=None):
        """Remove whitespace, or the characters in ``to_strip``, from the end.

        Examples
        --------
        >>> zb.Series(["  a  ", "xxaxx"]).str.rstrip("x ").to_list()
        ['  a', 'xxa']
        """
        return self._op("rstrip", pat=to_strip)

    def slice(self, start=None, stop=None, step=None):
        """``s[start:stop:step]`` of every row, in characters; also written
        ``s.str[start:stop:step]``.

        Examples
        --------
        >>> s = zb.Series(["abcdef", "xy", None])
        >>> s.str.slice(1, 4).to_list()
        ['bcd', 'y', None]
        >>> s.str[::2].to_list()
        ['ace', 'x', None]
        >>> s.str[0].to_list()   # a position: str.get
        ['a', 'x', None]
        """
        if step == 0:
            raise InvalidValueError("str.slice: slice step cannot be zero")
        return self._op("slice", start=start, stop=stop, step=step)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self.slice(key.start, key.stop, key.step)
        if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
            return self.get(key)   # pandas: s.str[i] is s.str.get(i)
        raise UnsupportedError(f".str[...] takes a slice or a position, not "
                               f"{type(key).__name__}")

    def cat(self, others=None, sep=None, na_rep=None, join="left"):
        """Concatenate row by row with ``others`` (a Series or a list-like of
        the same length), ``sep`` between; null if either side is null.
        Without ``others``: all non-null rows joined into one str.

        Examples
        --------
        >>> s = zb.Series(["a", "b", None])
        >>> s.str.cat(["x", "y", "z"], sep="-").to_list()
        ['a-x', 'b-y', None]
        >>> s.str.cat(sep=",")
        'a,b'
        """
        if na_rep is not None:
            raise UnsupportedError("str.cat: na_rep is not supported")
        if sep is not None and not isinstance(sep, str):
            raise DTypeError("str.cat: sep must be a str")
        if others is None:
            return _core.str_join(self._s._col, sep)
        if isinstance(others, str):
            raise InvalidValueError("Did you mean to supply a `sep` keyword?")
        if not _base.is_series(others):
            others = self._s._constructor(others)
        return self._wrap(_core.str_cat(self._s._col, others._col, sep))

    def get_dummies(self, sep="|", dtype=None):
        """Each string split at ``sep``: a frame with one column per token
        (sorted), 1 where the row holds it (int64, or ``dtype``); a
        missing row is all 0; an empty token (``""``, or between two
        ``sep``) makes a column ``""``, as pandas' str dtype does (a
        categorical's empty tokens are left out, as for pandas' object
        strings).  Splits each distinct string once.

        Examples
        --------
        >>> zb.Series(["a|b", None, "b"]).str.get_dummies().to_dict("list")
        {'a': [1, 0, 0], 'b': [1, 0, 1]}
        """
        from zambezi._pivot import str_get_dummies

        return str_get_dummies(self._s, sep, dtype)


def _calendar_field(name, summary, value):
    """A DatetimeMethods property: the calendar field ``name`` of each row,
    with a docstring whose example gives ``value`` for 2024-03-09 14:05:30."""
    doc = f"""{summary}

    Examples
    --------
    >>> import datetime
    >>> s = zb.Series([datetime.datetime(2024, 3, 9, 14, 5, 30), None])
    >>> s.dt.{name}.to_list()
    [{value}, None]
    """
    return property(lambda self: self._field(name), doc=doc)


class DatetimeMethods:
    """Calendar fields of a date32 or timestamp Series (``Series.dt``), as
    int32 with nulls kept.  Timestamps use UTC (naive or tz "UTC") or their
    fixed offset; named timezones raise UnsupportedError.  Also rounding,
    strftime, names and flags of timestamps, time zones, and the parts of a
    duration Series (days, seconds, total_seconds ...; zambezi._dt_methods).

    Examples
    --------
    >>> import datetime
    >>> s = zb.Series([datetime.date(2024, 3, 9), datetime.date(2023, 12, 31)])
    >>> s.dt.year
    0    2024
    1    2023
    dtype: int32
    >>> s.dt.dayofweek.to_list()
    [5, 6]
    """

    __slots__ = ("_s",)

    def __init__(self, series):
        dtype = series.dtype
        if dtype == "category" and series._col.dictionary.dtype.startswith(
                ("timestamp", "duration", "date32")):
            # pandas' .dt of a categorical of times: on the values
            series = series._like(_core.cast(series._col, series._col.dictionary.dtype))
            dtype = series.dtype
        if dtype != "date32" and not dtype.startswith(("timestamp", "duration")):
            raise AccessorError(
                f"Can only use .dt accessor with datetimelike values, not {dtype} "
                f"(column {series.name!r})")
        self._s = series

    def _field(self, name):
        col = _dt_methods.field_source(self._s._col)  # named zones: in wall time
        return self._s._like(_core.dt_field(col, name))

    year = _calendar_field("year", "The year.", 2024)
    month = _calendar_field("month", "The month, 1..12.", 3)
    day = _calendar_field("day", "The day of the month, 1..31.", 9)
    hour = _calendar_field(
        "hour", "The hour, 0..23 (timestamps; a date32 Series raises DTypeError).", 14)
    minute = _calendar_field("minute", "The minute, 0..59 (timestamps).", 5)
    second = _calendar_field("second", "The second, 0..59 (timestamps).", 30)
    dayofweek = _calendar_field(
        "dayofweek", "The day of the week, Monday = 0 (9 March 2024 was a Saturday).", 5)
    day_of_week = dayofweek
    weekday = dayofweek
    dayofyear = _calendar_field("dayofyear", "The day of the year, 1..366.", 69)
    day_of_year = dayofyear
    quarter = _calendar_field("quarter", "The quarter of the year, 1..4.", 1)
    microsecond = _calendar_field(
        "microsecond", "The microsecond within the second, 0..999999 (timestamps).", 0)
    nanosecond = _calendar_field(
        "nanosecond",
        "The nanosecond within the microsecond, 0..999 (timestamps; 0 unless the unit is ns).",
        0)

    # -- timestamps: rounding, text, flags, zones (zambezi._dt_methods) --
    def _new(self, col):
        return self._s._like(col)

    def floor(self, freq, ambiguous="raise", nonexistent="raise"):
        """Round down to a fixed frequency ("D", "h", "15min", "s" ...), in
        wall time; durations too.  Zone-aware results are localized back
        with ambiguous / nonexistent (see tz_localize), as pandas does.

        Examples
        --------
        >>> import datetime
        >>> s = zb.Series([datetime.datetime(2024, 3, 9, 14, 5, 30), None])
        >>> s.dt.floor("h").to_list()
        [Timestamp('2024-03-09 14:00:00'), NaT]
        """
        return self._new(_dt_methods.round_to(self._s._col, freq, "floor", ambiguous,
                                              nonexistent))

    def ceil(self, freq, ambiguous="raise", nonexistent="raise"):
        """Round up to a fixed frequency (see floor).

        Examples
        --------
        >>> import datetime
        >>> zb.Series([datetime.datetime(2024, 3, 9, 14, 5)]).dt.ceil("h").to_list()
        [Timestamp('2024-03-09 15:00:00')]
        """
        return self._new(_dt_methods.round_to(self._s._col, freq, "ceil", ambiguous,
                                              nonexistent))

    def round(self, freq, ambiguous="raise", nonexistent="raise"):
        """Round to the nearest multiple of a fixed frequency, halves to
        even (as pandas).

        Examples
        --------
        >>> import datetime
        >>> zb.Series([datetime.datetime(2024, 3, 9, 14, 30)]).dt.round("h").to_list()
        [Timestamp('2024-03-09 14:00:00')]
        """
        return self._new(_dt_methods.round_to(self._s._col, freq, "round", ambiguous,
                                              nonexistent))

    def normalize(self):
        """The timestamps at midnight (wall time), the unit and zone kept.

        Examples
        --------
        >>> import datetime
        >>> zb.Series([datetime.datetime(2024, 3, 9, 14, 5)]).dt.normalize().to_list()
        [Timestamp('2024-03-09 00:00:00')]
        """
        return self._new(_dt_methods.round_to(self._s._col, "D", "floor"))

    def strftime(self, date_format):
        """Text of each timestamp or date in a format (%Y %y %m %d %H %I %M
        %S %f %j %b %B %a %A %p %z %%); nulls stay null.

        Examples
        --------
        >>> import datetime
        >>> s = zb.Series([datetime.datetime(2024, 3, 9, 14, 5), None])
        >>> s.dt.strftime("%d %b %Y, %H:%M").to_list()
        ['09 Mar 2024, 14:05', None]
        """
        return self._new(_dt_methods.strftime(self._s._col, date_format))

    def day_name(self, locale=None):
        """The English name of the weekday ("Monday" ...).

        Examples
        --------
        >>> import datetime
        >>> zb.Series([datetime.date(2024, 3, 9)]).dt.day_name().to_list()
        ['Saturday']
        """
        _no_locale(locale)
        return self._new(_dt_methods.day_name(self._s._col))

    def month_name(self, locale=None):
        """The English name of the month ("January" ...).

        Examples
        --------
        >>> import datetime
        >>> zb.Series([datetime.date(2024, 3, 9)]).dt.month_name().to_list()
        ['March']
        """
        _no_locale(locale)
        return self._new(_dt_methods.month_name(self._s._col))

    def isocalendar(self):
        """The ISO 8601 year, week and day (Monday = 1) of each value, as
        a frame of columns year (int32) / week / day (uint32), nulls kept
        (pandas gives its nullable Int32 / UInt32).

        Examples
        --------
        >>> import datetime
        >>> s = zb.Series([datetime.date(2024, 12, 30), datetime.date(2021, 1, 3)])
        >>> s.dt.isocalendar().to_dict("list")
        {'year': [2025, 2020], 'week': [1, 53], 'day': [1, 7]}
        """
        from zambezi import _base

        cols = _dt_methods.isocalendar(self._s._col)
        return _base.frame_class()._wrap(_core.table_from_columns(
            cols, ["year", "week", "day"]), self._s._index)

    @property
    def days_in_month(self):
        """The number of days in the month, int32 (nulls kept).

        Examples
        --------
        >>> import datetime
        >>> zb.Series([datetime.date(2024, 2, 9)]).dt.days_in_month.to_list()
        [29]
        """
        return self._new(_dt_methods.days_in_month(self._s._col))

    daysinmonth = days_in_month

    @property
    def date(self):
        """The calendar date of each timestamp (wall time), as date32.

        Examples
        --------
        >>> import datetime
        >>> zb.Series([datetime.datetime(2024, 3, 9, 14, 5)]).dt.date.to_list()
        [datetime.date(2024, 3, 9)]
        """
        return self._new(_dt_methods.to_date(self._s._col))

    def tz_localize(self, tz, ambiguous="raise", nonexistent="raise"):
        """Naive timestamps as wall times in zone tz ("UTC", a fixed offset
        such as "+05:30", or a named zone such as "Europe/Berlin"), or
        zone-aware ones back to naive wall times (tz None).

        ambiguous: for a wall time a fall-back hour repeats, "raise", "NaT",
        True (the first, daylight time), False (the second), a bool array
        per row, or "infer": from the order of the rows, as pandas infers
        it (each run of adjacent ambiguous rows must go back in time
        exactly once: the rows before that are daylight time, the rest
        standard time; else InvalidValueError).  nonexistent: for a wall time a
        spring-forward gap skips, "raise", "NaT", "shift_forward" (the first
        time after the gap) or "shift_backward" (the last one before it).
        Named zones are read from the system's zoneinfo or the tzdata
        package.  Difference from pandas: pandas shifts by whole hours from
        the wall time, which misses gaps that are not one whole hour (Lord
        Howe's 30 minutes, the day Samoa skipped in 2011); zambezi shifts to
        the gap's real ends.

        Examples
        --------
        >>> import datetime
        >>> s = zb.Series([datetime.datetime(2024, 3, 9, 12, 0)]).dt.tz_localize("+02:00")
        >>> s.dtype, s.dt.tz_convert("UTC").dt.hour.to_list()
        ('timestamp[us, tz=+02:00]', [10])
        >>> fall = zb.Series([datetime.datetime(2024, 10, 27, 2, 30)])
        >>> fall.dt.tz_localize("Europe/Berlin", ambiguous=False).dt.tz_convert("UTC").dt.hour
        0    1
        dtype: int32
        >>> hours = zb.Series(pd.to_datetime(["2024-10-27 01:30", "2024-10-27 02:30",
        ...                                   "2024-10-27 02:30", "2024-10-27 03:30"]))
        >>> hours.dt.tz_localize("Europe/Berlin", ambiguous="infer").dt.tz_convert("UTC").dt.hour
        0    23
        1     0
        2     1
        3     2
        dtype: int32
        """
        return self._new(_dt_methods.tz_localize(self._s._col, tz, ambiguous, nonexistent))

    def tz_convert(self, tz):
        """The same instants shown in another zone (tz None: naive UTC).

        Examples
        --------
        >>> import datetime
        >>> s = zb.Series([datetime.datetime(2024, 3, 9, 12, 0)]).dt.tz_localize("UTC")
        >>> s.dt.tz_convert("+05:30").dt.hour.to_list()
        [17]
        """
        return self._new(_dt_methods.tz_convert(self._s._col, tz))

    # -- durations --
    @property
    def days(self):
        """Whole days of each duration (floored: -1 for "-1 days +23:00:00");
        int64, or float64 with NaN where there are NaT (as pandas).

        Examples
        --------
        >>> zb.to_timedelta(zb.Series(["1 days 02:00:00", "-1h"])).dt.days.to_list()
        [1, -1]
        """
        return self._new(_dt_methods.duration_field(self._s._col, "days"))

    @property
    def seconds(self):
        """Seconds within the day of each duration, 0..86399 (see days).

        Examples
        --------
        >>> zb.to_timedelta(zb.Series(["1 days 02:00:01"])).dt.seconds.to_list()
        [7201]
        """
        return self._new(_dt_methods.duration_field(self._s._col, "seconds"))

    @property
    def microseconds(self):
        """Microseconds within the second of each duration (see days).

        Examples
        --------
        >>> zb.to_timedelta(zb.Series(["00:00:01.5"])).dt.microseconds.to_list()
        [500000]
        """
        return self._new(_dt_methods.duration_field(self._s._col, "microseconds"))

    @property
    def nanoseconds(self):
        """Nanoseconds within the microsecond of each duration (see days).

        Examples
        --------
        >>> zb.to_timedelta(zb.Series(["1us 5ns"])).dt.nanoseconds.to_list()
        [5]
        """
        return self._new(_dt_methods.duration_field(self._s._col, "nanoseconds"))

    def total_seconds(self):
        """Each duration in seconds, float64 (missing at NaT: NaN in
        to_pandas(), None in to_list()).

        Examples
        --------
        >>> zb.to_timedelta(zb.Series(["1 days", "1.5s", None])).dt.total_seconds().to_list()
        [86400.0, 1.5, None]
        """
        return self._new(_dt_methods.total_seconds(self._s._col))

    @property
    def components(self):
        """A DataFrame of days, hours, minutes, seconds, milliseconds,
        microseconds and nanoseconds of each duration (pandas'
        TimedeltaProperties.components).

        Examples
        --------
        >>> c = zb.to_timedelta(zb.Series(["1 days 02:03:04.005"])).dt.components
        >>> c.to_dict("list")["hours"], c.to_dict("list")["milliseconds"]
        ([2], [5])
        """
        from zambezi._labels import frame_from

        parts = _dt_methods.components(self._s._col)
        return frame_from(self._s._constructor_expanddim, [c for _, c in parts],
                          [nm for nm, _ in parts], self._s._index)


def _no_locale(locale):
    if locale is not None:
        raise UnsupportedError("locale= is not supported (names are English)")


def _dt_flag(name, summary, example, value):
    doc = f"""{summary}  bool, False at NaT.

    Examples
    --------
    >>> import datetime
    >>> zb.Series([datetime.date{example}]).dt.{name}.to_list()
    [{value}]
    """
    return property(lambda self: self._new(_dt_methods.flag(self._s._col, name)), doc=doc)


for _name, _summary, _example, _value in [
        ("is_month_start", "Whether the day is the first of its month.", "(2024, 3, 1)", True),
        ("is_month_end", "Whether the day is the last of its month.", "(2024, 2, 29)", True),
        ("is_quarter_start", "Whether the day is the first of a quarter.", "(2024, 4, 1)",
         True),
        ("is_quarter_end", "Whether the day is the last of a quarter.", "(2024, 3, 30)",
         False),
        ("is_year_start", "Whether the day is 1 January.", "(2024, 1, 1)", True),
        ("is_year_end", "Whether the day is 31 December.", "(2024, 12, 31)", True),
        ("is_leap_year", "Whether the year is a leap year.", "(2100, 1, 1)", False)]:
    setattr(DatetimeMethods, _name, _dt_flag(_name, _summary, _example, _value))


# -- elementwise extras used by Series ------------------------------------

def clip(series, lower=None, upper=None):
    col = series._col
    return series._like(_core.column_clip(col, _int_bound(col, lower, False),
                                          _int_bound(col, upper, True)))


def _int_bound(col, bound, upper):
    """The bound as pandas applies it to an integer column: a float the
    dtype holds exactly (8.0) as an int, keeping the dtype; one it cannot
    hold (7.5, or out of the dtype's range) changes the dtype only when a
    value is clipped to it (pandas sets the bound where values pass it),
    so it is dropped when none passes it."""
    if not col.dtype.startswith(("int", "uint")) or \
            type(bound) not in (float, np.float64, np.float32) or bound != bound:
        return bound
    info = np.iinfo(col.dtype)
    if float(bound).is_integer() and info.min <= bound <= info.max:
        return int(bound)
    extreme = col.reduce("max" if upper else "min")
    if extreme is None or (extreme <= bound if upper else extreme >= bound):
        return None
    return bound


def round_(series, decimals=0):
    return series._like(_core.column_round(series._col, int(decimals)))


def between(series, left, right, inclusive="both"):
    col = series._col
    if col.dtype.startswith(("timestamp", "duration")):   # text and finer units as in s >= x
        col, left = time_operand(col, left, "ge")
        col, right = time_operand(col, right, "le")
    col = _core.column_between(col, left, right, inclusive)
    return series._like(pandas_comparison_nulls(col, "ge", series._col))


def _is_array_like(obj):
    """A list, tuple, numpy array, pandas Series or Arrow array (not a scalar)."""
    return isinstance(obj, (list, tuple)) or getattr(obj, "ndim", 0) >= 1 or hasattr(
        obj, "__arrow_c_array__")


def _as_column(series, obj, what):
    if _base.is_series(obj):
        return obj._col
    if _is_array_like(obj):
        return series._constructor(obj)._col
    raise DTypeError(f"{what} must be a Series or array-like, not {type(obj).__name__}")


def _at_labels(series, obj, other):
    """A Series cond or other at series' row labels, as pandas aligns them:
    itself when the indexes are the same (no hash work), else reindexed (a
    label obj lacks gives null: a cond that replaces the value, as pandas'
    False for where and True for mask; for other, pandas' NaN, which makes
    an integer other without nulls float64)."""
    if _align.same_labels(series._index, obj._index):
        return obj._col
    col = obj.reindex(series._index)._col
    if other and col.null_count and not obj._col.null_count and \
            col.dtype.startswith(("int", "uint")):
        col = _core.cast(col, "float64")
    return col


def _exact_in(x, unit):
    """Whether datetime or timedelta x is a whole number of unit (False for
    other values)."""
    if hasattr(x, "to_datetime64"):
        x = x.to_datetime64()   # pd.Timestamp (UTC for a zoned one)
    elif hasattr(x, "to_timedelta64"):
        x = x.to_timedelta64()
    elif isinstance(x, datetime.datetime):
        x = np.datetime64(x.replace(tzinfo=None), "us")
    elif isinstance(x, datetime.timedelta):
        x = np.timedelta64(x, "us")
    if not isinstance(x, (np.datetime64, np.timedelta64)):
        return False
    kind = "M8" if isinstance(x, np.datetime64) else "m8"
    return bool(x.astype(f"{kind}[{unit}]") == x)


def _held_other(col, other):
    """other in col's number dtype where that dtype holds it exactly, as
    pandas keeps a column's dtype when it can hold the values put in
    (pandas' np_can_hold_element): a float32 column and int or float64
    values that are float32 values, an int column and whole floats (values
    or a float column without missing values) in its range; other as
    given otherwise (the engine then widens the result, as pandas does for
    an int column and a wider int column, whatever its values)."""
    dt = col.dtype
    if dt not in _dtypes.NUMERIC or dt in ("bool", "float64"):   # float64: the engine's
        return other                                              # result dtype anyway
    ints = dt in _dtypes.INTEGERS
    if isinstance(other, _core.Column):
        od = other.dtype
        if od == dt or od not in _dtypes.NUMERIC or od == "bool" or \
                (ints and (od not in _dtypes.FLOATS or other.null_count)):
            return other
        return _core.cast(other, dt) if _indexing.holds_exactly(other, dt) else other
    if ints and isinstance(other, (float, np.floating)) and not isinstance(other, bool) and \
            float(other).is_integer():
        info = np.iinfo(dt)
        if info.min <= other <= info.max:
            return int(other)
    return other


def where(series, cond, other=None, mask=False):
    if _base.is_series(cond):
        cond_col = _at_labels(series, cond, False)
    else:
        cond_col = _as_column(series, cond, "cond")
    if _base.is_series(other):
        other = _at_labels(series, other, True)
    elif _is_array_like(other):
        other = _as_column(series, other, "other")
    _dtypes.refuse_kind_mix(series._col.dtype, other, "where")
    col = series._col
    other = _held_other(col, other)
    if isinstance(other, _core.Column):   # times of another unit: the column's if it
        finer = _indexing.finer_time_unit(col, other)   # holds them exactly (pandas)
        if finer is not col:
            if _indexing.holds_exactly(other, col.dtype):
                other = _core.cast(other, col.dtype)
            else:
                col = finer
        else:
            other = _indexing.finer_time_unit(other, col)
    elif _indexing.other_time_kind(other, col.dtype):   # a naive numpy time by a zoned column
        raise DTypeError(f"where: {other!r} cannot be held in a column of dtype {col.dtype} "
                         "(pandas keeps it in an object column)")
    elif _dtypes.py_scalar(other) is None:
        other = None   # NaT, NA: missing (a time column keeps its unit)
    elif _dtypes.time_unit(col.dtype) is not None:
        if _exact_in(other, _dtypes.time_unit(col.dtype)):
            other = _dtypes.py_scalar(other)
        else:   # pandas: the column in the finer unit
            col, other = time_operand(col, other, "where")
    if col.dtype == "category":
        # the codes, so the result stays categorical (as pandas)
        if cond_col.dtype != "bool" or cond_col.length != len(series):
            return series._like(_core.column_where(col, cond_col, other, mask=mask))
        result = _frame_extra.where_categorical(series, cond_col, other, mask)
        if result is not None:
            return result
    return series._like(_core.column_where(col, cond_col, other, mask=mask))


def date_sub(a, b):
    """``a - b`` of two date32 or two timestamp Series as a duration: in
    seconds for dates, the finer unit for timestamps."""
    return a._like(_core.date_diff(a._col, b._col))


class SeriesExtras:
    """The mixin that gives Series ``.str``, ``.dt``, ``clip``, ``round``,
    ``between``, ``where``, ``mask``, ``replace``, ``sample``, ``pipe``,
    ``drop`` and ``copy``."""

    __slots__ = ()

    @_base.takes_inplace(deprecated=True)
    def drop(self, labels=None, *, axis=0, index=None, columns=None, level=None,
             errors="raise"):
        """The Series without the rows labelled labels (a label or a list;
        or ``index=``); KeyError for a label it does not have, unless
        errors="ignore".

        Examples
        --------
        >>> s = zb.Series([1, 2, 3], index=["a", "b", "c"])
        >>> s.drop(["a", "c"]).to_list()
        [2]
        >>> s.drop("z", errors="ignore").to_list()
        [1, 2, 3]
        """
        from zambezi._frame_ops import FrameOps

        if errors not in ("raise", "ignore"):
            raise InvalidValueError(f"drop: errors must be 'raise' or 'ignore', not {errors!r}")
        if axis not in (0, "index", "rows"):
            raise InvalidValueError(f"No axis named {axis!r} for object type Series")
        if columns is not None or level is not None:
            raise UnsupportedError("Series.drop with columns= or level= is not supported")
        if labels is not None and index is not None:
            raise InvalidValueError("drop: give labels= or index=, not both")
        labels = index if labels is None else labels
        if labels is None:
            raise InvalidValueError("Need to specify at least one of 'labels' or 'index'")
        return FrameOps._drop_rows(self, labels, errors)

    @property
    def str(self):
        """Vectorised string functions (string and categorical Series); see
        the Series.str section.  AccessorError (an AttributeError) for
        other dtypes.

        Examples
        --------
        >>> zb.Series(["Maun", None]).str.len().to_list()
        [4, None]
        """
        if self.dtype.startswith("list<"):  # pandas' .str of an object column of lists
            from zambezi._lists import ListStringMethods

            return ListStringMethods(self)
        return StringMethods(self)

    @property
    def dt(self):
        """Calendar fields (date32 and timestamp Series); see the Series.dt
        section.  AccessorError (an AttributeError) for other dtypes.

        Examples
        --------
        >>> import datetime
        >>> zb.Series([datetime.date(2024, 3, 9), None]).dt.month.to_list()
        [3, None]
        """
        return DatetimeMethods(self)

    @_base.takes_inplace(deprecated=False)
    def clip(self, lower=None, upper=None):
        """Values limited to [lower, upper] (None or NaN: no bound).  An
        integer Series clipped to a float bound its dtype cannot hold (4.5)
        gives float64, as pandas; one it holds (8.0), or one no value
        passes, keeps the dtype.

        Examples
        --------
        >>> s = zb.Series([1, 5, None, 9])
        >>> s.clip(2, 8).to_list()
        [2, 5, None, 8]
        >>> s.clip(upper=4.5).to_list()
        [1.0, 4.5, None, 4.5]
        """
        return clip(self, lower, upper)

    def round(self, decimals=0):
        """numpy rounding: half to even; integers with decimals < 0 round to
        tens, hundreds... (round(25, -1) == 20).

        Examples
        --------
        >>> zb.Series([2.5, 3.5, -0.5, 1.234]).round().to_list()
        [2.0, 4.0, -0.0, 1.0]
        >>> zb.Series([1.234, 5.678]).round(1).to_list()
        [1.2, 5.7]
        >>> zb.Series([25, 35, 151]).round(-1).to_list()
        [20, 40, 150]
        """
        return round_(self, decimals)

    def between(self, left, right, inclusive="both"):
        """Bool Series: left <= x <= right (inclusive: both, neither, left,
        right).  A missing x gives what pandas gives for the column's
        dtype: null for an integer or bool column (pandas' ``Int64`` /
        ``boolean``), False for the others (float, string, dates...).

        Examples
        --------
        >>> s = zb.Series([1, 5, None, 9])
        >>> s.between(2, 5).to_list()
        [False, True, None, False]
        >>> s.between(1, 5, inclusive="left").to_list()
        [True, False, None, False]
        >>> zb.Series([1.5, None, 9.0]).between(1, 5).to_list()
        [True, False, False]
        """
        return between(self, left, right, inclusive)

    @_base.takes_inplace(deprecated=False)
    def where(self, cond, other=None):
        """The value where cond is true, else other (a scalar or Series;
        default null).  A null in cond replaces the row.  A Series cond or
        other is matched by row label, as pandas aligns it (a label cond
        lacks replaces the row; one other lacks gives null); a list or
        array by position.  A categorical
        stays categorical when other is missing, one of its categories or a
        categorical with the same categories (another str raises, as
        pandas); other others give strings.  Bools with numbers (a bool
        other for a number column, a number for a bool column), and a
        number or bool for a timestamp or date column, raise DTypeError:
        pandas keeps both kinds in an object column.

        Examples
        --------
        >>> s = zb.Series([1, 5, None, 9])
        >>> s.where(s > 4).to_list()
        [None, 5, None, 9]
        >>> s.where(s > 4, 0).to_list()
        [0, 5, 0, 9]
        """
        return where(self, cond, other, mask=False)

    @_base.takes_inplace(deprecated=False)
    def mask(self, cond, other=None):
        """The value where cond is false, else other.  A null in cond, or
        a label a Series cond lacks, replaces the row (as pandas); a Series
        cond or other is matched by row label.

        Examples
        --------
        >>> s = zb.Series([1, 5, None, 9])
        >>> s.mask(s > 4, -1).to_list()
        [1, -1, -1, -1]
        """
        return where(self, cond, other, mask=True)

    @_base.takes_inplace(deprecated=False)
    def replace(self, to_replace=None, value=_base.NO_DEFAULT, *, regex=False):
        """Values replaced: one value by another (``replace(0, 5)``), a list
        by a list or by one value, or a dict ``{old: new}``.  ``None`` or NaN
        as the old value means the missing values.  Every match is found in
        the original values (``{1: 2, 2: 3}`` turns 1 into 2).  A value of
        another kind than the column's (a str in an integer column) matches
        nothing; a new value the dtype cannot hold raises DTypeError (pandas
        makes the column object).  An integer column stays integer when a
        value becomes None (null; pandas makes it object).  A categorical
        keeps its categories: a new value must be one of them, as pandas.

        Examples
        --------
        >>> s = zb.Series([0, 1, 2, None])
        >>> s.replace(0, 5).to_list()
        [5, 1, 2, None]
        >>> s.replace({1: 2, 2: 3}).to_list()
        [0, 2, 3, None]
        >>> s.replace([0, None], [-1, 99]).to_list()
        [-1, 1, 2, 99]
        >>> zb.Series(["a", "b"]).replace("a", "z").to_list()
        ['z', 'b']

        With regex=True the patterns apply to text (zambezi._replace_regex):

        >>> zb.Series(["x1", " ", "y2"]).replace(r"^\\s*$", None, regex=True).to_list()
        ['x1', None, 'y2']
        >>> zb.Series(["x1", "y2"]).replace(r"(\\w)(\\d)", r"\\2\\1", regex=True).to_list()
        ['1x', '2y']
        """
        if regex is not False:
            from zambezi import _replace_regex as rr

            pairs = rr.regex_pairs(to_replace, value, regex, "replace")
            return rr.replace_text(self, pairs, "replace") if rr.is_text(self) else self
        pairs = _frame_extra._replace_pairs(to_replace, value, f"replace on {self._describe()}")
        return _frame_extra.replace_series(self, pairs)

    def sample(self, n=None, frac=None, replace=False, weights=None, random_state=None,
               axis=None, ignore_index=False):
        """A random sample of n values (or a fraction frac), drawn as pandas
        draws them: the same integer random_state (or numpy RandomState)
        picks the same rows in the same order.  weights (one number per
        row; missing counts as 0) make rows more likely; replace=True may
        pick a row more than once.  Renumbered from 0.

        Examples
        --------
        >>> s = zb.Series([10, 20, 30, 40, 50], name="a")
        >>> s.sample(3, random_state=1).to_list()
        [30, 20, 50]
        >>> s.sample(frac=1.0, replace=True, random_state=0).to_list()
        [50, 10, 40, 40, 40]
        """
        if _frame_extra._axis_number(axis, "sample") != 0:
            raise InvalidValueError("Series.sample: axis must be 0")
        pos = _frame_extra.sample_positions(self, len(self), n, frac, replace, weights,
                                            random_state)
        return self._select_rows(_indexing.take_rows(_core.column_from_buffer(pos)))

    def pipe(self, func, *args, **kwargs):
        """``func(s, *args, **kwargs)``, so that calls chain left to right;
        func may be a tuple (callable, keyword) to pass the Series as that
        keyword.

        Examples
        --------
        >>> zb.Series([1, 2]).pipe(lambda s, k: s * k, 3).to_list()
        [3, 6]
        """
        return _frame_extra.pipe(self, func, args, kwargs)

    def copy(self, deep=True):
        """A new Series over the same values: zambezi data is immutable, so
        a copy shares buffers (deep is accepted and ignored).

        Examples
        --------
        >>> s = zb.Series([1, 2], name="a")
        >>> c = s.copy()
        >>> c.to_list(), c.name
        ([1, 2], 'a')
        """
        return self._like(self._col)
