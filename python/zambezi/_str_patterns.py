"""The pattern methods of Series.str: regular expressions (contains,
match, fullmatch, count, replace, extract), split / rsplit and partition /
rpartition.  A mixin of zambezi.accessors.StringMethods.

Every method is one engine call (``_core.regex_op``, C over the string
column in parallel with the GIL released).  Regular expressions run on
PCRE2 (libpcre2-8, loaded at run time); patterns are written in Python's
``re`` syntax and checked by ``re.compile`` first, so a bad pattern raises
what pandas raises for it, wrapped as InvalidValueError.  The syntax
difference that changes meaning most, ``\\Z`` (end of string in Python,
before a final newline in PCRE2), is translated.  Matching follows Python's re:
``\\d``, ``\\w``, ``\\s``, ``\\b`` are Unicode-aware (unless re.ASCII), matches
are non-overlapping, left to right; ``\\UXXXXXXXX``, ``\\N{NAME}`` and
``{,n}`` are translated too.  Where PCRE2 and Python's re still differ:
PCRE-only syntax (possessive quantifiers, ``\\K``...) is accepted; ``\\s``
does not match the separators U+001C..U+001F, which Python counts as
whitespace; case-insensitive matching folds case as Unicode does; the
inline flags (?a) and (?L) are refused.

Nulls propagate: a null row gives a null result, as zambezi's other str
methods (pandas' str dtype fills False / -1 / NaN for them; ``na=`` fills
here too).  List results (``split(expand=False)``, ``rsplit``,
``findall``) are list<string> columns (zambezi._lists); a null row gives a
null list.
"""

import re
import unicodedata

import numpy as np

from zambezi import _convert, _core, _labels
from zambezi.errors import DTypeError, InvalidValueError, UnsupportedError

_ENGINE_FLAGS = ((re.IGNORECASE, 1), (re.MULTILINE, 2), (re.DOTALL, 4), (re.VERBOSE, 8),
                 (re.ASCII, 16))
_LITERAL = 32
_KNOWN_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE | re.ASCII | re.UNICODE


def _literal(ch):
    """The character ch as it stands for itself in a PCRE2 pattern (ASCII
    punctuation and whitespace escaped; PCRE2's \\x{...} is not available
    in the mode that reads Python's \\uXXXX)."""
    return "\\" + ch if ch.isascii() and not ch.isalnum() else ch


# Python before 3.14: \B does not match in an empty string (PCRE2's does)
_B_SKIPS_EMPTY = re.search(r"\B", "") is None
# flags for the whole pattern at its start: (?a), (?i), (?aimsx) ...
_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")


def _strip_global_flags(pat):
    """pat without the flag groups at its start (re.compile has read them
    into the pattern's flags; PCRE2 lacks (?a) and (?u))."""
    i = 0
    while (m := _GLOBAL_FLAGS.match(pat, i)) is not None:
        i = m.end()
    return pat[i:]


def _translate(pat, ascii=False):
    """Python regex syntax to PCRE2 where the two differ in meaning: \\Z
    (end of string) is PCRE2's \\z; \\UXXXXXXXX and \\N{NAME} become the
    character itself; a quantifier {,n} is {0,n} and {,} is {0,}; \\B does
    not match an empty string (before Python 3.14); Python's \\s (unless
    ascii) also matches the separators \\x1c-\\x1f, which PCRE2's does not,
    and \\S does not.  Character classes are copied as they are (apart from
    the escapes; \\S inside one is left as PCRE2 reads it)."""
    if "\\" not in pat and "{," not in pat:
        return pat
    out, i, n, in_class, class_start = [], 0, len(pat), False, False
    while i < n:
        ch = pat[i]
        if ch == "\\" and i + 1 < n:
            nxt = pat[i + 1]
            if nxt in "sS" and not ascii:
                if nxt == "s":
                    out.append("\\s\\x1c-\\x1f" if in_class else "[\\s\\x1c-\\x1f]")
                else:
                    out.append("\\S" if in_class else "[^\\s\\x1c-\\x1f]")
                i += 2
                continue
            if nxt == "Z" and not in_class:
                out.append("\\z")
                i += 2
                continue
            if nxt == "B" and not in_class and _B_SKIPS_EMPTY:
                out.append("(?!\\A\\z)\\B")  # Python's \B never matches an empty string
                i += 2
                continue
            if nxt == "U" and i + 10 <= n:
                out.append(_literal(chr(int(pat[i + 2:i + 10], 16))))
                i += 10
                continue
            if nxt == "N" and i + 2 < n and pat[i + 2] == "{" and "}" in pat[i + 3:]:
                end = pat.index("}", i + 3)
                try:
                    out.append(_literal(unicodedata.lookup(pat[i + 3:end])))
                except KeyError:
                    out.append(pat[i:end + 1])  # re.compile has refused it already
                i = end + 1
                continue
            out.append(ch + nxt)
            i += 2
            continue
        if in_class:
            if ch == "]" and not class_start:
                in_class = False
            class_start = False
        elif ch == "[":
            in_class, class_start = True, True
            out.append(ch)
            i += 1
            if i < n and pat[i] == "^":
                out.append("^")
                i += 1
            continue
        elif ch == "{" and pat.startswith("{,", i):
            j = i + 2
            while j < n and pat[j].isdigit():
                j += 1
            if j < n and pat[j] == "}":  # {,n} is {0,n}; {,} is {0,}
                out.append("{0," + pat[i + 2:j] + "}")
                i = j + 1
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def compile_pattern(pat, flags, case, what):
    """(Python compiled pattern, PCRE2 source, engine flags) of pat (a str
    or compiled pattern) with re flags and case."""
    if isinstance(pat, re.Pattern):
        flags |= pat.flags & ~re.UNICODE
        pat = pat.pattern
    if not isinstance(pat, str):
        raise DTypeError(f"str.{what}: pat must be a str or compiled pattern, not "
                         f"{type(pat).__name__}")
    flags = int(flags or 0)
    if flags & ~_KNOWN_FLAGS:
        raise UnsupportedError(f"str.{what}: re flags {flags:#x} are not supported "
                               "(IGNORECASE, MULTILINE, DOTALL, VERBOSE and ASCII are)")
    if case is False:
        flags |= re.IGNORECASE
    try:
        regex = re.compile(pat, flags)
    except re.error as exc:
        raise InvalidValueError(f"str.{what}: invalid regular expression {pat!r}: {exc}") from None
    # regex.flags: the flags given and those set inline at the start of pat
    eflags = 0
    for f, e in _ENGINE_FLAGS:
        if regex.flags & f:
            eflags |= e
    return regex, _translate(_strip_global_flags(pat), bool(regex.flags & re.ASCII)), eflags


def _template(regex, repl):
    """re.sub's replacement template repl as (literal text, (bytes, group)
    pairs) for the engine: \\1, \\g<name>, \\g<1> and escapes as Python
    reads them."""
    try:
        parsed = re._parser.parse_template(repl, regex)  # noqa: SLF001 (re's own reader)
    except re.error as exc:
        raise InvalidValueError(f"str.replace: invalid replacement {repl!r}: {exc}") from None
    if isinstance(parsed, tuple):  # Python 3.11: (groups [(slot, group)], literals)
        groups, literals = parsed
        items = list(literals)
        for slot, g in groups:
            items[slot] = g
    else:  # 3.12+: literal, group, literal, ...
        items = list(parsed)
    text, pairs, pending = [], [], 0
    for item in items:
        if item is None:
            continue
        if isinstance(item, str):
            b = item.encode("utf-8", "surrogatepass")
            text.append(item)
            pending += len(b)
        else:
            pairs += [pending, int(item)]
            pending = 0
    pairs += [pending, -1]
    return "".join(text), pairs


def _expand_split(kind, n, expand):
    if not isinstance(expand, bool):
        raise InvalidValueError(f"str.{kind}: expand must be True or False")
    if n is None or n == 0:
        return -1
    return int(n)



def _empty_to_null(col):
    """A string column with its empty strings as nulls (engine compare and
    take; no row loop)."""
    empty = _core.binary_scalar("eq", col, "", False)
    hit = _convert.values_numpy(empty).astype(bool)
    m = _convert.null_mask(empty)
    if m is not None:
        hit &= ~m
    if not hit.any():
        return col
    if m is not None:
        hit |= m
    idx = np.arange(col.length, dtype=np.int64)
    return _core.take(col, _core.column_from_buffer(idx, mask=hit))


class _PatternMethods:
    """Mixin: the pattern methods of StringMethods (self._s the Series)."""

    __slots__ = ()

    def _regex(self, op, pat=None, flags=0, n=-1, repl=None, tmpl=None, as_list=False):
        return _core.regex_op(self._s._col, op, pat=pat, flags=flags, n=n, repl=repl, tmpl=tmpl,
                              as_list=as_list)

    def _fill_na(self, out, na, what):
        if na is None or na is _NO_NA:
            return out
        if not isinstance(na, bool):
            raise DTypeError(f"str.{what}: na must be a bool, not {type(na).__name__}")
        return out.fillna(na)

    def _frame(self, table, labels):
        df = self._s._constructor_expanddim._wrap(table, self._s._index)
        if labels is not None:
            _labels.attach(df, _labels.from_list(labels))
        return df

    # -- tests --------------------------------------------------------------
    def contains(self, pat, case=True, flags=0, na=None, regex=True):
        """True where ``pat`` occurs in the row: a regular expression
        (re.search) or, with regex=False, literal text.  case=False and
        ``flags`` (re.IGNORECASE, MULTILINE, DOTALL, VERBOSE, ASCII) as in
        Python's re; a null row gives null, or ``na`` when given.

        Examples
        --------
        >>> s = zb.Series(["Lusaka", "Maun 2", None])
        >>> s.str.contains(r"\\d").to_list()
        [False, True, None]
        >>> s.str.contains("LU", case=False, na=False).to_list()
        [True, False, False]
        >>> zb.Series(["a.b", "ab"]).str.contains(".", regex=False).to_list()
        [True, False]
        """
        if not regex:
            if not isinstance(pat, str):
                raise DTypeError(f"str.contains: pat must be a str, not {type(pat).__name__}")
            if flags:
                raise InvalidValueError("str.contains: flags need regex=True")
            if case:
                out = self._op("contains", pat=pat)
            else:
                out = self._wrap(self._regex("contains", pat, 1 | _LITERAL))
            return self._fill_na(out, na, "contains")
        _, src, ef = compile_pattern(pat, flags, case, "contains")
        return self._fill_na(self._wrap(self._regex("contains", src, ef)), na, "contains")

    def match(self, pat, case=True, flags=0, na=None):
        """True where the regular expression matches at the start of the
        row (re.match).

        Examples
        --------
        >>> zb.Series(["ab12", "12ab", None]).str.match(r"[a-z]+\\d").to_list()
        [True, False, None]
        """
        _, src, ef = compile_pattern(pat, flags, case, "match")
        return self._fill_na(self._wrap(self._regex("match", src, ef)), na, "match")

    def fullmatch(self, pat, case=True, flags=0, na=None):
        """True where the regular expression matches the whole row
        (re.fullmatch).

        Examples
        --------
        >>> zb.Series(["ab12", "ab12x", None]).str.fullmatch(r"[a-z]+\\d+").to_list()
        [True, False, None]
        """
        _, src, ef = compile_pattern(pat, flags, case, "fullmatch")
        return self._fill_na(self._wrap(self._regex("fullmatch", src, ef)), na, "fullmatch")

    def count(self, pat, flags=0):
        """The number of non-overlapping matches of the regular expression
        in each row (int64; len(re.findall)).  pandas gives float64 when a
        row is missing; here the null stays null in an int64 column.

        Examples
        --------
        >>> zb.Series(["a1b22", "", None]).str.count(r"\\d").to_list()
        [3, 0, None]
        """
        _, src, ef = compile_pattern(pat, flags, True, "count")
        return self._wrap(self._regex("count", src, ef))

    # -- replace -----------------------------------------------------------
    def replace(self, pat, repl, n=-1, case=None, flags=0, regex=False):
        """Replace the first ``n`` (all when n < 0) matches of ``pat`` by
        ``repl``: literal text (regex=False, the default, like Python's
        str.replace) or a regular expression (regex=True, like re.sub: repl
        may refer to groups as ``\\1``, ``\\g<1>`` or ``\\g<name>``).  A
        callable repl is not supported.

        Examples
        --------
        >>> s = zb.Series(["a-b-c", None])
        >>> s.str.replace("-", "+").to_list()
        ['a+b+c', None]
        >>> s.str.replace("-", "", n=1).to_list()
        ['ab-c', None]
        >>> zb.Series(["2024-03-09"]).str.replace(r"(\\d+)-(\\d+)-(\\d+)", r"\\3/\\2/\\1",
        ...                                       regex=True).to_list()
        ['09/03/2024']
        """
        if callable(repl):
            raise UnsupportedError("str.replace: a callable repl is not supported")
        if not isinstance(repl, str):
            raise DTypeError(f"str.replace: repl must be a str, not {type(repl).__name__}")
        n = -1 if n is None else int(n)
        if isinstance(pat, re.Pattern) and not regex:
            raise InvalidValueError("str.replace: a compiled pattern needs regex=True")
        if not regex:
            if not isinstance(pat, str):
                raise DTypeError(f"str.replace: pat must be a str, not {type(pat).__name__}")
            if flags:
                raise InvalidValueError("str.replace: flags need regex=True")
            if case is not False:
                return self._op("replace", pat=pat, repl=repl, n=n)
            return self._wrap(self._regex("replace", pat, 1 | _LITERAL, n, repl,
                                          [len(repl.encode("utf-8", "surrogatepass")), -1]))
        if n == 0:
            return self._wrap(self._s._col)
        if isinstance(pat, re.Pattern) and (case is not None or flags):
            raise InvalidValueError(
                "case and flags cannot be set when pat is a compiled regex")
        regex_obj, src, ef = compile_pattern(pat, flags, case, "replace")
        text, pairs = _template(regex_obj, repl)
        return self._wrap(self._regex("replace", src, ef, n, text, pairs))

    # -- extract -----------------------------------------------------------
    def extract(self, pat, flags=0, expand=True):
        """The capture groups of the first match in each row: a DataFrame
        with a column per group, named by the group's name or number from 0
        (expand=True); a Series for one group with expand=False.  A row
        without a match (or a group that took no part) gives null.  When
        named and unnamed groups mix, the labels are all str ("1" where
        pandas has 1): zambezi's column labels are of one kind.

        Examples
        --------
        >>> s = zb.Series(["a1", "b22", "c", None])
        >>> s.str.extract(r"([a-z])(\\d+)?").to_dict("list")
        {0: ['a', 'b', 'c', None], 1: ['1', '22', None, None]}
        >>> s.str.extract(r"(?P<letter>[a-z])(?P<digits>\\d+)").to_dict("list")
        {'letter': ['a', 'b', None, None], 'digits': ['1', '22', None, None]}
        >>> s.str.extract(r"(\\d+)", expand=False).to_list()
        ['1', '22', None, None]
        """
        if not isinstance(expand, bool):
            raise InvalidValueError("str.extract: expand must be True or False")
        regex, src, ef = compile_pattern(pat, flags, True, "extract")
        if regex.groups == 0:
            raise InvalidValueError("pattern contains no capture groups")
        names = {v: k for k, v in regex.groupindex.items()}
        labels = [names.get(g + 1, g) for g in range(regex.groups)]
        table = self._regex("extract", src, ef)
        if not expand and regex.groups == 1:  # named by its group, else as the Series
            return self._s._like(table.column(0), name=names.get(1, self._s.name))
        return self._frame(table, labels)

    def findall(self, pat, flags=0):
        """Every non-overlapping match of the regular expression in each
        row, as a list (dtype list<string>; re.findall): the whole match,
        or the text of the pattern's one group.  A null row gives a null
        list.  With several groups each match is a list of the groups'
        texts ('' for a group that took no part, as re.findall), so the
        result is a list<list<string>> where pandas gives lists of tuples
        (``to_pandas()`` gives lists of lists).

        Examples
        --------
        >>> zb.Series(["a1b22", "", None]).str.findall(r"\\d+").to_list()
        [['1', '22'], [], None]
        >>> zb.Series(["a1b2", "c"]).str.findall(r"([a-z])(\\d)?").to_list()
        [[['a', '1'], ['b', '2']], [['c', '']]]
        """
        regex, src, ef = compile_pattern(pat, flags, True, "findall")
        if regex.groups > 1:
            return self._wrap(self._findall_groups(regex.groups, src, ef))
        return self._wrap(self._regex("findall", src, ef))

    def _findall_groups(self, groups, src, ef):
        """findall of a pattern with several groups: list<list<string>>,
        match m of a row the list of its groups' texts.  One engine findall
        per group (the matches are the same for each); the groups' values
        are interleaved by one take."""
        from zambezi import _lists

        per = [self._regex("findall", src, ef, g) for g in range(1, groups + 1)]
        _, _, lens, null = _lists.parts(_lists._host(per[0]))
        vals = [_lists.explode(c, keep_empty=False)[0] for c in per]
        m = vals[0].length
        order = (np.arange(m, dtype=np.int64)[:, None] +
                 np.arange(groups, dtype=np.int64)[None, :] * m).ravel()
        texts = _core.take(_core.concat(vals), _core.column_from_buffer(order))
        if texts.null_count:
            texts = _core.fill_null(texts, "")  # a group that took no part: '' (re.findall)
        inner = _core.list_from_parts(np.arange(0, groups * m + 1, groups, dtype=np.int64),
                                      texts)
        offsets = np.zeros(len(lens) + 1, dtype=np.int64)
        np.cumsum(lens, out=offsets[1:])
        return _core.list_from_parts(offsets, inner, null if null.any() else None)

    def extractall(self, pat, flags=0):
        """One row per match, one column per capture group (named groups
        name their column), indexed by the row's label plus the level
        ``match`` (0, 1, ... within the row), as pandas; rows without a
        match give no rows; a group that took no part, or matched empty
        text, is null (pandas' extractall reads re.findall's tuples, where
        both are '').

        Examples
        --------
        >>> zb.Series(["a1b2", "c", "d3"]).str.extractall(r"[a-z](\\d)").to_dict("list")
        {0: ['1', '2', '3']}
        """
        from zambezi import _indexing, _lists, index as _ix

        regex, src, ef = compile_pattern(pat, flags, True, "extractall")
        if regex.groups == 0:
            raise InvalidValueError("pattern contains no capture groups")
        names = {v: k for k, v in regex.groupindex.items()}
        labels = [names.get(g + 1, g) for g in range(regex.groups)]
        cols, rows = [], None
        for g in range(1, regex.groups + 1):  # per group, not per row
            values, rows = _lists.explode(self._regex("findall", src, ef, g), keep_empty=False)
            cols.append(_empty_to_null(values))
        s = self._s
        first = np.searchsorted(rows, rows, side="left")
        match = np.arange(len(rows), dtype=np.int64) - first
        taken = s._index._take(_indexing.take_rows(_core.column_from_buffer(rows)))
        index = _ix.MultiIndex._from_columns(
            list(taken._levels()) + [_core.column_from_buffer(match)],
            list(taken.names) + ["match"])
        df = s._constructor_expanddim._wrap(
            _core.table_from_columns(cols, [str(i) for i in range(len(cols))]), index)
        _labels.attach(df, _labels.from_list(labels))
        return df

    # -- split and partition -----------------------------------------------
    def split(self, pat=None, *, n=-1, expand=False, regex=None):
        """The pieces of each row between the separators, as a DataFrame
        with columns 0..k-1 (expand=True), rows with fewer pieces padded
        with null.  pat None splits at runs of whitespace (Python's
        str.split()); a one-character pat is literal unless regex=True; a
        longer one is a regular expression unless regex=False (as pandas).
        At most ``n`` splits when n > 0.  Groups in a regular expression
        are kept as pieces, as re.split keeps them.  expand=False (pandas'
        default) gives a Series of lists (dtype list<string>; a null row
        gives a null list).  ``split(...).str[i]`` (or ``.str.get(i)``)
        takes piece i of each row directly, and ``.str.len()`` counts the
        pieces: the lists are built only when the result is used otherwise.

        Examples
        --------
        >>> s = zb.Series(["a b  c", "d", None])
        >>> s.str.split(expand=True).to_dict("list")
        {0: ['a', 'd', None], 1: ['b', None, None], 2: ['c', None, None]}
        >>> zb.Series(["a1b22c"]).str.split(r"\\d+", n=1, expand=True).to_dict("list")
        {0: ['a'], 1: ['b22c']}
        >>> s.str.split().to_list()
        [['a', 'b', 'c'], ['d'], None]
        """
        n = _expand_split("split", n, expand)
        lists = not expand  # one list<string> column instead of a table
        if pat is None:
            args = (None, 0)
        else:
            if isinstance(pat, re.Pattern):
                regex = True if regex is None else regex
                if not regex:
                    raise InvalidValueError("str.split: a compiled pattern needs regex=True")
            elif not isinstance(pat, str):
                raise DTypeError(f"str.split: pat must be a str, not {type(pat).__name__}")
            if regex is None:
                regex = len(pat) > 1
            if regex:
                _, src, ef = compile_pattern(pat, 0, True, "split")
                args = (src, ef)
            else:
                if pat == "":
                    raise InvalidValueError("str.split: empty separator")
                args = (pat, _LITERAL)
        if lists:  # the lists are built when something other than .str[i] needs them
            from zambezi import _split_lazy

            return _split_lazy.make(self._s, args[0], args[1], n)
        return self._split_result(self._regex("split", *args, n), expand)

    def _split_result(self, out, expand):
        if expand:
            return self._frame(*self._pandas_columns(out))
        return self._wrap(out)

    def _pandas_columns(self, out):
        """(table, labels) of an expanding split or partition as pandas
        shapes it: a column of nothing but missing values gives one missing
        column 0, an empty one no columns."""
        col = self._s._col
        if col.length == 0 and out.num_columns:
            out = _core.table_from_columns([], [])
        elif col.length and col.null_count == col.length:
            out = _core.table_from_columns([_convert.nulls_like(col, col.length)], ["0"])
        return out, list(range(out.num_columns))

    def rsplit(self, pat=None, *, n=-1, expand=False):
        """split counting the ``n`` splits from the right (Python's
        str.rsplit); pat is literal text or None (whitespace).  As for
        split, ``rsplit(...).str[i]`` and ``.str.len()`` do not build the
        lists.

        Examples
        --------
        >>> zb.Series(["a.b.c", None]).str.rsplit(".", n=1, expand=True).to_dict("list")
        {0: ['a.b', None], 1: ['c', None]}
        >>> zb.Series(["a.b.c", None]).str.rsplit(".", n=1).to_list()
        [['a.b', 'c'], None]
        """
        n = _expand_split("rsplit", n, expand)
        if pat is not None and not isinstance(pat, str):
            raise DTypeError(f"str.rsplit: pat must be a str, not {type(pat).__name__}")
        if pat == "":
            raise InvalidValueError("str.rsplit: empty separator")
        if not expand:  # the lists are built when something other than .str[i] needs them
            from zambezi import _split_lazy

            return _split_lazy.make(self._s, pat, _LITERAL, n, "rsplit")
        return self._split_result(self._regex("rsplit", pat, _LITERAL, n), expand)

    def _partition(self, kind, sep, expand):
        if expand is not True:
            raise UnsupportedError(f"str.{kind}(expand=False) gives tuples, which zambezi "
                                   "cannot hold; use expand=True")
        if not isinstance(sep, str):
            raise DTypeError(f"str.{kind}: sep must be a str, not {type(sep).__name__}")
        if sep == "":
            raise InvalidValueError("empty separator")
        return self._frame(*self._pandas_columns(self._regex(kind, sep, _LITERAL)))

    def partition(self, sep=" ", expand=True):
        """Each row split at the first ``sep`` into three columns: before,
        the separator, after (("row", "", "") without one), as Python's
        str.partition.

        Examples
        --------
        >>> zb.Series(["a=b=c", "d", None]).str.partition("=").to_dict("list")
        {0: ['a', 'd', None], 1: ['=', '', None], 2: ['b=c', '', None]}
        """
        return self._partition("partition", sep, expand)

    def rpartition(self, sep=" ", expand=True):
        """partition at the last ``sep`` (("", "", "row") without one).

        Examples
        --------
        >>> zb.Series(["a=b=c", "d"]).str.rpartition("=").to_dict("list")
        {0: ['a=b', ''], 1: ['=', ''], 2: ['c', 'd']}
        """
        return self._partition("rpartition", sep, expand)


_NO_NA = object()
