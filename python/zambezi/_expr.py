"""Expressions for ``DataFrame.query`` and ``DataFrame.eval``: a small, safe
parser and evaluator.

The text is parsed with Python's ``ast`` module -- never run with Python's
``eval`` -- and the tree is walked against an allow-list of node types.
Each node becomes a vectorized Series operation (one engine call over the
whole column), so nothing here loops over rows.

What an expression may hold, as in pandas' expression syntax:

- names: column names; a name with spaces or other characters in
  backticks (`` `fare usd` ``); ``@name`` for a variable of the caller
  (its locals, then its globals, or the ``local_dict`` / ``global_dict``
  given);
- constants (numbers, strings, ``True``, ``False``, ``None``) and lists or
  tuples of them;
- arithmetic ``+ - * / // % **`` and unary ``-`` / ``+``;
- comparisons ``== != < <= > >=``, chained (``1 < a < 3`` is
  ``(1 < a) & (a < 3)``); ``in`` / ``not in`` a list, a tuple or a
  column, and ``==`` / ``!=`` with a list (both mean ``isin``, as pandas);
- ``and``, ``or``, ``not`` and ``&``, ``|``, ``~``.  As in pandas, ``&``
  and ``|`` bind like ``and`` and ``or`` (looser than comparisons), so
  ``a > 1 & b < 2`` means ``(a > 1) & (b < 2)``.

``DataFrame.eval`` also takes assignments, one per line
(``"c = a + b"``), evaluated in order: a later line may use a column an
earlier one made.  A `quoted name` on the left makes the column of that
name (pandas 3.1 names it ``BACKTICK_QUOTED_STRING_...``).

Anything else -- attribute access (``a.abs()``), calls, subscripts,
lambdas, comprehensions -- raises UnsupportedError naming the construct;
an unknown column raises UndefinedVariableError (also a NameError, as
pandas' ``UndefinedVariableError``), and text that is not an expression
InvalidValueError.
"""

import ast
import operator
import sys

from zambezi import _base
from zambezi.errors import InvalidValueError, UndefinedVariableError, UnsupportedError

_LOCAL_PREFIX = "__zb_local_"
_BACKTICK_PREFIX = "__zb_backtick_"

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
_CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt,
    ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
}
_SYMBOLS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
}


# --------------------------------------------------------------------------
# text -> Python source: backticks, @variables, & and |
# --------------------------------------------------------------------------

def _rewrite(text):
    """text with `quoted names` and @names turned into identifiers, and
    & / | into ``and`` / ``or`` (pandas' precedence), outside string
    literals.  Returns (source, {identifier: column name})."""
    out, names = [], {}
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in "'\"":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                raise InvalidValueError(f"unterminated string in the expression {text!r}")
            out.append(text[i:j + 1])
            i = j + 1
        elif ch == "`":
            j = text.find("`", i + 1)
            if j < 0:
                raise InvalidValueError(f"unterminated `name` in the expression {text!r}")
            ident = f"{_BACKTICK_PREFIX}{len(names)}"
            names[ident] = text[i + 1:j]
            out.append(ident)
            i = j + 1
        elif ch == "@":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            if j == i + 1 or text[i + 1].isdigit():
                raise InvalidValueError(
                    f"'@' must be followed by a variable name in the expression {text!r}")
            out.append(_LOCAL_PREFIX + text[i + 1:j])
            i = j
        elif ch in "&|":
            out.append(" and " if ch == "&" else " or ")
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out), names


def parse(text, mode):
    """The ast of text: mode "eval" for one expression (query), "exec" for
    eval (expressions or assignments, one per line).  Returns (tree,
    backtick names)."""
    if not isinstance(text, str):
        raise InvalidValueError(f"the expression must be a str, not {type(text).__name__}")
    if not text.strip():
        raise InvalidValueError("the expression is empty")
    source, names = _rewrite(text)
    # pandas allows an expression to span lines inside brackets only; a
    # line break elsewhere separates assignments (eval)
    try:
        tree = ast.parse(source.strip(), mode=mode)
    except SyntaxError as e:
        raise InvalidValueError(f"invalid expression {text!r}: {e.msg}") from None
    return tree, names


# --------------------------------------------------------------------------
# the evaluator
# --------------------------------------------------------------------------

class _Scope:
    """What names mean: the frame's columns (the frame may gain columns as
    eval's assignments run), and the caller's variables for @names."""

    def __init__(self, df, text, backticks, local_dict, global_dict):
        self.df = df
        self.text = text
        self.backticks = backticks
        self.local_dict = local_dict
        self.global_dict = global_dict

    def column(self, name):
        if name in self.df._table.names:
            return self.df._column(name)
        raise UndefinedVariableError(
            f"name {name!r} is not defined: no column of that name (the columns are "
            f"{self.df._table.names!r}); write @{name} for a Python variable "
            f"(in {self.text!r})")

    def variable(self, name):
        for d in (self.local_dict, self.global_dict):
            if d is not None and name in d:
                return d[name]
        raise UndefinedVariableError(
            f"local variable {name!r} is not defined (in {self.text!r})")


def caller_scope(level):
    """(locals, globals) of the frame ``level`` calls above the caller of
    the function that calls this (query / eval's caller at level 0)."""
    frame = sys._getframe(2 + level)
    try:
        return dict(frame.f_locals), frame.f_globals
    finally:
        del frame


def _is_series(x):
    return _base.is_series(x)


def _unsupported(node, scope):
    what = type(node).__name__
    hint = ""
    if isinstance(node, ast.Attribute) or (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        hint = " (attribute access and methods, such as col.str or col.abs(), are not supported)"
    elif isinstance(node, ast.Call):
        hint = " (function calls are not supported)"
    return UnsupportedError(
        f"{what} is not supported in an expression{hint}: {scope.text!r}")


def _isin(left, right, negate, scope):
    if _is_series(left):
        if _is_series(right):
            values = right
        elif isinstance(right, (list, tuple)):
            values = list(right)
        else:
            values = [right]
        r = left.isin(values)
        return ~r if negate else r
    if _is_series(right):
        raise UnsupportedError(
            f"'value in column' is not supported; write 'column == value' ({scope.text!r})")
    if isinstance(right, (list, tuple)):
        return (left not in right) if negate else (left in right)
    raise InvalidValueError(f"'in' needs a list, a tuple or a column on its right ({scope.text!r})")


def _compare(op, left, right, scope):
    if isinstance(op, (ast.In, ast.NotIn)):
        return _isin(left, right, isinstance(op, ast.NotIn), scope)
    if isinstance(op, (ast.Eq, ast.NotEq)):
        # == / != with a list is isin, as in pandas
        if isinstance(right, (list, tuple)) and _is_series(left):
            return _isin(left, right, isinstance(op, ast.NotEq), scope)
        if isinstance(left, (list, tuple)) and _is_series(right):
            return _isin(right, left, isinstance(op, ast.NotEq), scope)
    fn = _CMPOPS.get(type(op))
    if fn is None:
        raise UnsupportedError(
            f"the comparison {type(op).__name__} is not supported in an expression "
            f"({scope.text!r})")
    return fn(left, right)


def _logical(a, b, is_and):
    if _is_series(a) or _is_series(b):
        return (a & b) if is_and else (a | b)
    return (a and b) if is_and else (a or b)


def evaluate(node, scope):
    """The value of an expression node: a Series, a scalar, or a list."""
    if isinstance(node, ast.Expression):
        return evaluate(node.body, scope)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (int, float, str, bool)) or node.value is None:
            return node.value
        raise _unsupported(node, scope)
    if isinstance(node, ast.Name):
        ident = node.id
        if ident.startswith(_LOCAL_PREFIX):
            return scope.variable(ident[len(_LOCAL_PREFIX):])
        if ident in scope.backticks:
            return scope.column(scope.backticks[ident])
        if ident in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[ident]
        return scope.column(ident)
    if isinstance(node, (ast.List, ast.Tuple)):
        values = [evaluate(e, scope) for e in node.elts]
        if any(_is_series(v) for v in values):
            raise UnsupportedError(f"a list of columns is not supported ({scope.text!r})")
        return values
    if isinstance(node, ast.BinOp):
        fn = _BINOPS.get(type(node.op))
        if fn is None:
            raise _unsupported(node.op, scope)
        left, right = evaluate(node.left, scope), evaluate(node.right, scope)
        if not (_is_series(left) or _is_series(right)):
            _check_constant_op(node.op, left, right, scope)
        return fn(left, right)
    if isinstance(node, ast.UnaryOp):
        value = evaluate(node.operand, scope)
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return value
        if isinstance(node.op, (ast.Not, ast.Invert)):
            if _is_series(value):
                return ~value
            if isinstance(node.op, ast.Not) or isinstance(value, bool):
                return not value
            return ~value
        raise _unsupported(node.op, scope)
    if isinstance(node, ast.BoolOp):
        is_and = isinstance(node.op, ast.And)
        result = evaluate(node.values[0], scope)
        for v in node.values[1:]:
            result = _logical(result, evaluate(v, scope), is_and)
        return result
    if isinstance(node, ast.Compare):
        left = evaluate(node.left, scope)
        result = None
        for op, comp in zip(node.ops, node.comparators):
            right = evaluate(comp, scope)
            r = _compare(op, left, right, scope)
            result = r if result is None else _logical(result, r, True)
            left = right
        return result
    raise _unsupported(node, scope)


def _check_constant_op(op, left, right, scope):
    """Refuse constant arithmetic that would build a huge Python object
    (``'a' * 10**12``, ``10 ** 10**9``): constants fold in Python."""
    big = 10**6
    if isinstance(op, ast.Pow) and isinstance(right, int) and not isinstance(right, bool) \
            and abs(right) > big and isinstance(left, int) and abs(left) > 1:
        raise InvalidValueError(f"the power in {scope.text!r} is too large")
    if isinstance(op, ast.Mult) and (
            (isinstance(left, (str, list, tuple)) and isinstance(right, int) and right > big)
            or (isinstance(right, (str, list, tuple)) and isinstance(left, int) and left > big)):
        raise InvalidValueError(f"the repetition in {scope.text!r} is too large")


def run_eval(df, text, local_dict, global_dict):
    """DataFrame.eval: (the value of the last expression, or None, and the
    frame after the assignments)."""
    tree, backticks = parse(text, "exec")
    if not tree.body:
        raise InvalidValueError("the expression is empty")
    scope = _Scope(df, text, backticks, local_dict, global_dict)
    assigned = False
    value = None
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                raise UnsupportedError(
                    f"an assignment must have one column name on its left ({text!r})")
            ident = stmt.targets[0].id
            if ident.startswith(_LOCAL_PREFIX):
                raise UnsupportedError(f"cannot assign to a local variable ({text!r})")
            target = backticks.get(ident, ident)
            result = evaluate(stmt.value, scope)
            if isinstance(result, (list, tuple)):
                raise UnsupportedError(f"cannot assign a list to column {target!r} ({text!r})")
            if not assigned:
                scope.df = df = df.copy()
            df[target] = result
            assigned = True
            value = None
        elif isinstance(stmt, ast.Expr):
            if assigned or len(tree.body) > 1:
                raise InvalidValueError(
                    "multi-line expressions are only valid if every line is an "
                    f"assignment ({text!r})")
            value = evaluate(stmt.value, scope)
        else:
            raise _unsupported(stmt, scope)
    return value, (df if assigned else None)


def run_query(df, text, local_dict, global_dict):
    """DataFrame.query: the bool Series (or bool) the expression gives."""
    tree, backticks = parse(text, "eval")
    return evaluate(tree, _Scope(df, text, backticks, local_dict, global_dict))
