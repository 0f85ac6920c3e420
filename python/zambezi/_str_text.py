"""The text methods of Series.str that need no pattern: case transforms
(title, capitalize, swapcase, casefold), padding (pad, center, ljust,
rjust, zfill), repeat, find / rfind / index / rindex, get, slice_replace,
removeprefix / removesuffix and the is* predicates.  A mixin of
zambezi.accessors.StringMethods.

The per-row work is C (``_core.str_op``, src/cpu/str_text.h), or a few
engine calls composed here (get, removeprefix, index); nothing loops over
rows.  Characters are code points, as in Python.  The Unicode rules are
those of Arrow's kernels, which pandas' default (pyarrow-backed) str dtype
uses: simple one-to-one case mappings ("ß".title() is "ẞ" where Python's
gives "Ss"), isdigit true for the digit-like numbers of category No ("½",
as pandas; Python's str.isdigit says False), islower / isupper over the
characters that have a case mapping.  casefold is Python's full case
folding, as pandas applies it.  Nulls stay null (pandas' str dtype gives
False for the predicates and NaN for find).
"""

import numbers

from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

_FORMS = ("NFC", "NFD", "NFKC", "NFKD")


def _int(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise DTypeError(f"{what} must be an int, not {type(value).__name__}")
    return int(value)


def _fillchar(fillchar, what):
    if not isinstance(fillchar, str):
        raise DTypeError(f"{what}: fillchar must be a character (str), not "
                         f"{type(fillchar).__name__}")
    if len(fillchar) != 1:
        raise DTypeError(f"{what}: fillchar must be a character, not str of length "
                         f"{len(fillchar)}")
    return ord(fillchar)


class _TextMethods:
    """Mixin: the text methods of StringMethods (self._s the Series)."""

    __slots__ = ()

    # -- case ------------------------------------------------------------------
    def title(self):
        """Each run of cased letters with its first letter upper case and the
        rest lower case (simple case mappings, as pandas' str dtype:
        "ß" starts a word as "ẞ").

        Examples
        --------
        >>> zb.Series(["hello wORLD", "élan 2x", None]).str.title().to_list()
        ['Hello World', 'Élan 2X', None]
        """
        return self._op("title")

    def capitalize(self):
        """The first character upper case, the others lower case.

        Examples
        --------
        >>> zb.Series(["hello WORLD", "émile", None]).str.capitalize().to_list()
        ['Hello world', 'Émile', None]
        """
        return self._op("capitalize")

    def swapcase(self):
        """Lower case letters to upper case and upper to lower.

        Examples
        --------
        >>> zb.Series(["Hello", "ÉlAN", None]).str.swapcase().to_list()
        ['hELLO', 'éLan', None]
        """
        return self._op("swapcase")

    def casefold(self):
        """Python's str.casefold: lower case for caseless comparison, with
        the full folding ("ß" becomes "ss").

        Examples
        --------
        >>> zb.Series(["Straße", "ΣΊΣΥΦΟΣ", None]).str.casefold().to_list()
        ['strasse', 'σίσυφοσ', None]
        """
        return self._op("casefold")

    # -- per distinct value (Python's text libraries) ---------------------------
    def _per_distinct(self, fn, what):
        """fn (str -> str) of each row, called once per distinct value: the
        column is dictionary-encoded by the engine (a categorical already
        is), fn maps the dictionary, and one engine take puts the results
        back on the rows.  Nulls stay null."""
        import numpy as np

        from zambezi import _core
        from zambezi._convert import null_mask, to_column, values_numpy

        col = self._s._col
        if col.device != "cpu":
            col = col.to_device("cpu")
        if col.dtype != "category":
            col = _core.cast(col, "category")
        mapped = to_column([fn(v) for v in col.dictionary.to_pylist()], dtype="string")
        codes = values_numpy(col).astype(np.int64)
        m = null_mask(col)
        out = _core.take(mapped, _core.column_from_buffer(
            np.where(m, 0, codes) if m is not None else codes, mask=m))
        if self._s._col.device != "cpu":
            out = out.to_device(self._s._col.device)
        return self._wrap(out)

    def normalize(self, form):
        """The Unicode normal form ``form`` ("NFC", "NFD", "NFKC" or
        "NFKD") of each row, by Python's unicodedata (its Unicode version),
        called once per distinct value, not per row.

        Examples
        --------
        >>> s = zb.Series(["e\\u0301te\\u0301", "\\ufb01le", None])
        >>> [len(v) for v in s.str.normalize("NFC").to_list()[:1]]
        [3]
        >>> s.str.normalize("NFKC").to_list()[1:]
        ['file', None]
        """
        import unicodedata

        if not isinstance(form, str):
            raise DTypeError(f"str.normalize: form must be a str, not {type(form).__name__}")
        if form not in _FORMS:
            raise InvalidValueError(f"str.normalize: form must be one of {list(_FORMS)}, not "
                                    f"{form!r}")
        return self._per_distinct(lambda v: unicodedata.normalize(form, v), "str.normalize")

    def translate(self, table):
        """Each row with its characters mapped through ``table`` (Python's
        ``str.translate``: a dict of code points to strings, code points or
        None, as ``str.maketrans`` makes), as pandas; called once per
        distinct value, not per row.

        Examples
        --------
        >>> s = zb.Series(["a-b", "b_c", None])
        >>> s.str.translate(str.maketrans({"-": " ", "_": None})).to_list()
        ['a b', 'bc', None]
        """
        if not hasattr(table, "__getitem__"):
            raise DTypeError(f"str.translate: table must be a mapping (str.maketrans), not "
                             f"{type(table).__name__}")
        return self._per_distinct(lambda v: v.translate(table), "str.translate")

    def wrap(self, width, expand_tabs=True, tabsize=8, replace_whitespace=True,
             drop_whitespace=True, initial_indent="", subsequent_indent="",
             fix_sentence_endings=False, break_long_words=True, break_on_hyphens=True,
             max_lines=None, placeholder=" [...]"):
        """Each row wrapped to lines of at most ``width`` characters, joined
        by "\\n", as pandas does: Python's textwrap.TextWrapper with these
        arguments, called once per distinct value, not per row.

        Examples
        --------
        >>> zb.Series(["the Zambezi river", None]).str.wrap(10).to_list()
        ['the\\nZambezi\\nriver', None]
        """
        import textwrap

        width = _int(width, "str.wrap: width")
        if width <= 0:
            raise InvalidValueError(f"str.wrap: width must be positive, not {width}")
        try:
            tw = textwrap.TextWrapper(
                width=width, expand_tabs=expand_tabs, tabsize=tabsize,
                replace_whitespace=replace_whitespace, drop_whitespace=drop_whitespace,
                initial_indent=initial_indent, subsequent_indent=subsequent_indent,
                fix_sentence_endings=fix_sentence_endings, break_long_words=break_long_words,
                break_on_hyphens=break_on_hyphens, max_lines=max_lines,
                placeholder=placeholder)
            return self._per_distinct(lambda v: "\n".join(tw.wrap(v)), "str.wrap")
        except ValueError as e:  # textwrap's own checks (placeholder too large ...)
            raise InvalidValueError(f"str.wrap: {e}") from None

    # -- padding -------------------------------------------------------------
    def pad(self, width, side="left", fillchar=" "):
        """Rows shorter than ``width`` characters filled with ``fillchar``
        on the left, right or both sides (both as Python's str.center).

        Examples
        --------
        >>> s = zb.Series(["ab", "abcd", None])
        >>> s.str.pad(4, fillchar="*").to_list()
        ['**ab', 'abcd', None]
        >>> s.str.pad(5, side="both").to_list()
        ['  ab ', ' abcd', None]
        """
        width = _int(width, "str.pad: width")
        sides = {"left": 0, "right": 1, "both": 2}
        if side not in sides:
            raise InvalidValueError("str.pad: side must be 'left', 'right' or 'both', not "
                                    f"{side!r}")
        return self._op("pad", width=width, side=sides[side], fill=_fillchar(fillchar, "str.pad"))

    def center(self, width, fillchar=" "):
        """Centred in ``width`` characters (``pad(side="both")``).

        Examples
        --------
        >>> zb.Series(["ab", None]).str.center(6, "-").to_list()
        ['--ab--', None]
        """
        return self.pad(width, "both", fillchar)

    def ljust(self, width, fillchar=" "):
        """Filled on the right to ``width`` characters.

        Examples
        --------
        >>> zb.Series(["ab", None]).str.ljust(4, ".").to_list()
        ['ab..', None]
        """
        return self.pad(width, "right", fillchar)

    def rjust(self, width, fillchar=" "):
        """Filled on the left to ``width`` characters.

        Examples
        --------
        >>> zb.Series(["ab", None]).str.rjust(4, ".").to_list()
        ['..ab', None]
        """
        return self.pad(width, "left", fillchar)

    def zfill(self, width):
        """Zeros on the left to ``width`` characters, after a leading "+" or
        "-" (Python's str.zfill).

        Examples
        --------
        >>> zb.Series(["42", "-7", "abc", None]).str.zfill(4).to_list()
        ['0042', '-007', '0abc', None]
        """
        return self._op("pad", width=_int(width, "str.zfill: width"), side=3)

    def repeat(self, repeats):
        """Each row repeated ``repeats`` times (one int; a list per row is
        not supported).

        Examples
        --------
        >>> zb.Series(["ab", "", None]).str.repeat(3).to_list()
        ['ababab', '', None]
        """
        if not isinstance(repeats, numbers.Integral) or isinstance(repeats, bool):
            raise UnsupportedError("str.repeat: repeats must be one int (a sequence per row "
                                   "is not supported)")
        return self._op("repeat", n=int(repeats))

    # -- positions -----------------------------------------------------------
    def _find(self, op, sub, start, end):
        if not isinstance(sub, str):
            raise DTypeError(f"expected a string object, not {type(sub).__name__}")
        start = _int(start, f"str.{op}: start")
        if end is not None:
            end = _int(end, f"str.{op}: end")
        return self._op(op, pat=sub, start=start, stop=end)

    def find(self, sub, start=0, end=None):
        """The lowest character index where ``sub`` occurs within
        [start, end), or -1 (Python's str.find; int64, nulls kept where
        pandas gives float64).

        Examples
        --------
        >>> zb.Series(["abcab", "xyz", None]).str.find("b").to_list()
        [1, -1, None]
        >>> zb.Series(["abcab"]).str.find("b", 2).to_list()
        [4]
        """
        return self._find("find", sub, start, end)

    def rfind(self, sub, start=0, end=None):
        """The highest character index where ``sub`` occurs within
        [start, end), or -1 (Python's str.rfind).

        Examples
        --------
        >>> zb.Series(["abcab", "xyz", None]).str.rfind("b").to_list()
        [4, -1, None]
        """
        return self._find("rfind", sub, start, end)

    def _index(self, op, sub, start, end):
        out = self._find(op, sub, start, end)
        if (out == -1).fillna(False).any():
            raise InvalidValueError("substring not found")
        return out

    def index(self, sub, start=0, end=None):
        """find, raising InvalidValueError (a ValueError) when a row lacks
        ``sub``, as Python's str.index.

        Examples
        --------
        >>> zb.Series(["abcab", None]).str.index("c").to_list()
        [2, None]
        """
        return self._index("find", sub, start, end)

    def rindex(self, sub, start=0, end=None):
        """rfind, raising InvalidValueError when a row lacks ``sub``.

        Examples
        --------
        >>> zb.Series(["abcab", None]).str.rindex("a").to_list()
        [3, None]
        """
        return self._index("rfind", sub, start, end)

    def get(self, i):
        """The character at position ``i`` (negative counts from the end),
        null where the row is shorter.

        Examples
        --------
        >>> zb.Series(["abc", "x", "", None]).str.get(1).to_list()
        ['b', None, None, None]
        >>> zb.Series(["abc", "x"]).str.get(-1).to_list()
        ['c', 'x']
        """
        i = _int(i, "str.get: i")
        chars = self.slice(i, i + 1 if i != -1 else None)
        lengths = self.len()
        inside = lengths > i if i >= 0 else lengths >= -i
        return chars.where(inside)

    def slice_replace(self, start=None, stop=None, repl=None):
        """Each row with the characters start..stop replaced by repl (an
        empty span -- start at or past stop -- inserts repl at start), as
        pandas: three engine slices and a concatenation.

        Examples
        --------
        >>> zb.Series(["abcdef", "xy", None]).str.slice_replace(1, 3, "-").to_list()
        ['a-def', 'x-', None]
        >>> zb.Series(["abcdef"]).str.slice_replace(3, 1, "-").to_list()
        ['abc-def']
        """
        repl = "" if repl is None else repl
        if not isinstance(repl, str):
            raise DTypeError(f"str.slice_replace: repl must be a str, not "
                             f"{type(repl).__name__}")
        left = self.slice(0, 0) if start is None else self.slice(None, start)
        out = left + repl
        if stop is not None:
            empty = self.slice(start, stop).str.len() == 0
            out = out + self.slice(start).where(empty, self.slice(stop))
        return out

    def removeprefix(self, prefix):
        """The row without ``prefix`` where it starts with it.

        Examples
        --------
        >>> zb.Series(["str_a", "b", None]).str.removeprefix("str_").to_list()
        ['a', 'b', None]
        """
        if not isinstance(prefix, str):
            raise DTypeError(f"str.removeprefix: prefix must be a str, not {type(prefix).__name__}")
        if not prefix:
            return self._wrap(self._s._col)
        return self.slice(len(prefix)).where(self.startswith(prefix), self._s)

    def removesuffix(self, suffix):
        """The row without ``suffix`` where it ends with it.

        Examples
        --------
        >>> zb.Series(["a.csv", "b", None]).str.removesuffix(".csv").to_list()
        ['a', 'b', None]
        """
        if not isinstance(suffix, str):
            raise DTypeError(f"str.removesuffix: suffix must be a str, not {type(suffix).__name__}")
        if not suffix:
            return self._wrap(self._s._col)
        return self.slice(None, -len(suffix)).where(self.endswith(suffix), self._s)


def _predicate(name, summary, data, want):
    doc = f"""{summary}  An empty string is False; a null stays null.

    Examples
    --------
    >>> zb.Series({data!r}).str.{name}().to_list()
    {want!r}
    """

    def method(self):
        return self._op(name)

    method.__name__ = name
    method.__doc__ = doc
    return method


for _name, _summary, _data, _want in [
    ("isalpha", "True where every character is a letter (categories L*).",
     ["abé", "a1", "", None], [True, False, False, None]),
    ("isdigit", "True where every character is a digit: decimal digits and the numbers "
     "of category No (\"²\", \"½\", as pandas' str dtype).",
     ["12", "²", "1.5", None], [True, True, False, None]),
    ("isnumeric", "True where every character is numeric (categories Nd, Nl, No).",
     ["12", "Ⅻ½", "1a", None], [True, True, False, None]),
    ("isalnum", "True where every character is a letter or numeric.",
     ["a1", "a 1", "é٣", None], [True, False, True, None]),
    ("isspace", "True where every character is whitespace (Python's str.isspace).",
     [" \t", " a", "\u3000", None], [True, False, True, None]),
    ("islower", "True where the cased characters are all lower case (at least one).",
     ["ab1", "aB", "é", None], [True, False, True, None]),
    ("isupper", "True where the cased characters are all upper case (at least one).",
     ["AB1", "aB", "É", None], [True, False, True, None]),
    ("istitle", "True where upper-case letters start the words and lower-case letters "
     "follow, as Python's str.istitle.",
     ["Hello World", "Hello world", "A1B", None], [True, False, True, None]),
    ("isdecimal", "True where every character is a decimal digit (category Nd).",
     ["12", "²", "٣", None], [True, False, True, None]),
]:
    setattr(_TextMethods, _name, _predicate(_name, _summary, _data, _want))
del _name, _summary, _data, _want


def _isascii(self):
    """True where every character is ASCII (below U+0080), as Python's
    str.isascii: an empty string is True; a null stays null.

    Examples
    --------
    >>> zb.Series(["ab", "é", "", None]).str.isascii().to_list()
    [True, False, True, None]
    """
    return self.fullmatch("[\\x00-\\x7f]*")


_isascii.__name__ = "isascii"
_TextMethods.isascii = _isascii
