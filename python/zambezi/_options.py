"""zambezi's options, in pandas' manner: ``zb.get_option``,
``zb.set_option``, ``zb.reset_option`` and ``zb.option_context``.

Only the display options exist so far (read by zambezi._format when a
frame is printed or shown in Jupyter):

- ``display.max_rows`` (20): a frame or Series with more rows shows
  ``display.min_rows`` of them (the first and last halves) and ``...``;
  None shows every row.  pandas' default is 60.
- ``display.min_rows`` (10): the rows shown when there are too many.
- ``display.max_columns`` (20): more columns show the first and last 10
  and ``...``; None shows them all.
- ``display.max_colwidth`` (50): longer cell text is cut, ending in
  ``...``; None does not cut.
"""

import contextlib

from zambezi.errors import InvalidValueError

_DEFAULTS = {
    "display.max_rows": 20,
    "display.min_rows": 10,
    "display.max_columns": 20,
    "display.max_colwidth": 50,
}
_values = dict(_DEFAULTS)


def _key(pat, where):
    if not isinstance(pat, str):
        raise InvalidValueError(f"{where}: the option name must be a str, not "
                                f"{type(pat).__name__}")
    if pat in _values:
        return pat
    found = [k for k in _values if k.endswith("." + pat)]
    if len(found) == 1:
        return found[0]
    raise InvalidValueError(f"{where}: no option {pat!r}; the options are "
                            + ", ".join(sorted(_values)))


def get_option(pat):
    """The value of option pat (a full name such as "display.max_rows", or
    its last part, "max_rows").

    Examples
    --------
    >>> zb.get_option("display.max_rows")
    20
    """
    return _values[_key(pat, "get_option")]


def set_option(pat, value):
    """Set option pat to value (a positive int, or None for no limit).  See
    zambezi._options for the options.

    Examples
    --------
    >>> zb.set_option("display.max_rows", 100)
    >>> zb.get_option("max_rows")
    100
    >>> zb.reset_option("display.max_rows")
    """
    key = _key(pat, "set_option")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                              or value < 1):
        raise InvalidValueError(f"set_option: {key} must be a positive int or None, not "
                                f"{value!r}")
    _values[key] = value


def reset_option(pat):
    """Set option pat back to its default ("all": every option).

    Examples
    --------
    >>> zb.set_option("display.max_columns", 5)
    >>> zb.reset_option("display.max_columns")
    >>> zb.get_option("display.max_columns")
    20
    """
    if pat == "all":
        _values.update(_DEFAULTS)
        return
    key = _key(pat, "reset_option")
    _values[key] = _DEFAULTS[key]


@contextlib.contextmanager
def option_context(*args):
    """Set options for the length of a ``with`` block, then restore them:
    ``option_context("display.max_rows", 5, "display.max_columns", 3)``.

    Examples
    --------
    >>> with zb.option_context("display.max_rows", 4):
    ...     print(zb.Series(range(6)))
    0    0
    1    1
    ...
    4    4
    5    5
    Length: 6, dtype: int64
    """
    if len(args) % 2 or not args:
        raise InvalidValueError("option_context: give option names and values in pairs")
    keys = [_key(k, "option_context") for k in args[::2]]
    saved = {k: _values[k] for k in keys}
    try:
        for k, v in zip(keys, args[1::2]):
            set_option(k, v)
        yield
    finally:
        _values.update(saved)


def max_rows():
    return _values["display.max_rows"]


def edge_rows():
    """Rows shown at each end of a frame too long to show."""
    m = _values["display.min_rows"]
    top = _values["display.max_rows"]
    return max(1, min(m, top if top is not None else m) // 2)


def max_cols():
    return _values["display.max_columns"]


def edge_cols():
    return max(1, (_values["display.max_columns"] or 2) // 2)


def max_cell():
    return _values["display.max_colwidth"]
