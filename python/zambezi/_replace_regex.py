"""``replace(..., regex=True)`` of Series and DataFrame, as pandas: the
patterns apply to the text columns (other columns are left as they are).

- a text value replaces every match (``re.sub``; ``\\1`` and ``\\g<name>``
  refer to groups) through the engine's PCRE2 ``str.replace``;
- a missing value (None / NaN) makes the whole value missing where the
  pattern matches (``re.search``) -- pandas' ``replace(r"^\\s*$", np.nan,
  regex=True)`` idiom for blank strings;
- several patterns (a list, or a dict ``{pattern: value}``) apply one
  after the other, each to the result of the ones before.
"""

import re

from zambezi import _base
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError


def regex_pairs(to_replace, value, regex, what):
    """The (pattern, value) pairs of pandas' replace(..., regex=...)."""
    if regex is not True and regex is not False:
        if to_replace is not None:   # regex=pattern(s) with to_replace=value(s)
            if value is not _base.NO_DEFAULT:
                raise InvalidValueError(f"{what}: give the pattern as to_replace or as "
                                        "regex, not both")
            value = to_replace
        to_replace = regex
    if isinstance(to_replace, dict):
        if value is not _base.NO_DEFAULT:
            raise UnsupportedError(f"{what}: a dict of patterns per column is not supported "
                                   "with regex")
        return list(to_replace.items())
    if value is _base.NO_DEFAULT:
        raise InvalidValueError(f"{what}: give the value that replaces the matches")
    pats = list(to_replace) if isinstance(to_replace, (list, tuple)) else [to_replace]
    if isinstance(value, (list, tuple)):
        if len(value) != len(pats):
            raise InvalidValueError(f"{what}: {len(pats)} patterns but {len(value)} values")
        return list(zip(pats, value))
    return [(p, value) for p in pats]


def _is_missing(v):
    return v is None or (isinstance(v, float) and v != v) or type(v).__name__ in (
        "NAType", "NaTType")


def replace_text(s, pairs, what):
    """Series s (text) with each (pattern, value) applied in turn."""
    for pat, value in pairs:
        if not isinstance(pat, (str, re.Pattern)):
            raise DTypeError(f"{what}: a pattern must be a str or compiled pattern, not "
                             f"{type(pat).__name__}")
        if _is_missing(value):
            hit = s.str.contains(pat, regex=True).fillna(False)
            s = s.mask(hit)
        elif isinstance(value, str):
            s = s.str.replace(pat, value, regex=True)
        else:
            raise UnsupportedError(f"{what}: replacing text matches by a "
                                   f"{type(value).__name__} would make the column hold "
                                   "mixed kinds, which zambezi does not support")
    return s


def is_text(s):
    """Whether the patterns apply to s: text does, numbers and times are
    left as they are; a categorical raises UnsupportedError (pandas
    rewrites its categories, merging equal ones)."""
    if s._col.dtype == "category":
        raise UnsupportedError("replace(regex=True) of a categorical column is not supported")
    return s._col.dtype == "string"
