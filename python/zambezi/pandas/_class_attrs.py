"""Attributes of the proxy classes as user code sets them: pd.Series.x =
..., del pd.Series.x, pytest's monkeypatch of a pandas method and its
undo, and the accessors user code registers
(pd.api.extensions.register_*_accessor).  As without the accelerator,
they change pandas' own class, so pandas' registration sees (and warns
about) what it overrides; a function or property is put on the proxy class
too, so that it receives the proxy and is not served by zambezi's own
method of that name."""

import inspect

from zambezi.pandas import _proxy

# (proxy class, name) -> what pandas' class held under name before it was
# first set through the proxy class (_MISSING: nothing of its own)
_PATCHED = {}
_MISSING = object()


def _sets_pandas_class(cls, name):
    """Whether setting name on proxy class cls sets it on its pandas class:
    cls stands for a pandas class (it is not a subclass user code made of
    one) and does not define name itself (its own methods, as __repr__)."""
    slow = cls.__dict__.get("_zb_slow_type")
    if slow is None or _proxy.SLOW_TO_PROXY.get(slow) is not cls:
        return False
    own = cls.__dict__.get(name, _MISSING)
    return own is _MISSING or isinstance(own, _proxy._Method) or (cls, name) in _PATCHED


def set_attr(cls, name, value):
    """cls.name = value for a proxy class cls (its metaclass' __setattr__)."""
    if not _sets_pandas_class(cls, name):
        type.__setattr__(cls, name, value)
    elif isinstance(value, _proxy._Method):   # a patch undone (pytest's monkeypatch)
        if (cls, name) in _PATCHED:
            _restore(cls, name)
    else:
        _PATCHED.setdefault((cls, name), cls._zb_slow_type.__dict__.get(name, _MISSING))
        setattr(cls._zb_slow_type, name, _proxy.unwrap_slow(value))
        _changed(name)
        if callable(value) or hasattr(type(value), "__get__"):
            type.__setattr__(cls, name, value)


def del_attr(cls, name):
    """del cls.name for a proxy class cls."""
    if not _sets_pandas_class(cls, name):
        type.__delattr__(cls, name)
    elif (cls, name) in _PATCHED:
        _restore(cls, name)
    else:
        delattr(cls._zb_slow_type, name)
        _changed(name)


def _restore(cls, name):
    """Undo the setting of name through proxy class cls: pandas' class gets
    back what it held (a monkeypatch's undo deletes a name the proxy class
    never held, or sets back the descriptor it held, which must restore
    pandas' own method, not delete it)."""
    old = _PATCHED.pop((cls, name), _MISSING)
    slow = cls._zb_slow_type
    if old is not _MISSING:
        setattr(slow, name, old)
    elif name in slow.__dict__:
        delattr(slow, name)
    if name in cls.__dict__ and not isinstance(cls.__dict__[name], _proxy._Method):
        type.__delattr__(cls, name)
    _changed(name)


def _changed(name):
    """A pandas class gained, changed or lost attribute name: what the
    proxy classes learnt about it is forgotten."""
    kinds = _proxy._ATTR_KIND
    for key in [k for k in kinds if k[1] == name]:
        del kinds[key]
    for cls in list(_proxy.SLOW_TO_PROXY.values()):
        if isinstance(cls.__dict__.get(name), _proxy._Method):
            type.__delattr__(cls, name)


def user_accessor(cls, name):
    """The descriptor of an accessor that user code registered under name
    on cls's pandas class, or None: it is made with the proxy, as pandas
    makes it with the object the user holds (pandas' own accessors, .str
    or .dt, take the dispatch path)."""
    slow = cls._zb_slow_type
    if name not in getattr(slow, "_accessors", ()):
        return None
    static = inspect.getattr_static(slow, name, None)
    made = getattr(static, "_accessor", None)
    if made is None or not hasattr(static, "__get__") or \
            (getattr(made, "__module__", None) or "").startswith("pandas."):
        return None
    return static
