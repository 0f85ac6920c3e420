"""The import hook: a sys.meta_path finder and loader for ``pandas`` and
``pandas.*`` that gives user code proxy modules.

As cudf.pandas does: at install the real pandas modules already imported are
moved in sys.modules to ``_zb_slow_pandas...`` names, so that the next
``import pandas`` reaches this finder.  A proxy module has no attributes of
its own; its ``__getattr__`` looks at the calling frame's file: code inside
pandas itself or inside zambezi gets the real attribute, any other code
(user scripts, third-party libraries) gets the wrapped one (proxy classes,
functions that unwrap their arguments and wrap their results, proxy
submodules).  Submodules imported later are loaded as real modules under
the prefixed name through the real package's __path__.
"""

import importlib
import importlib.abc
import importlib.machinery
import os
import sys
import types

from zambezi.pandas import _proxy, _wrappers
from zambezi.pandas._config import settings

PREFIX = "_zb_slow_"


def _rename(name, old, new):
    return new + name[len(old):]


class _Accelerator(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finder + loader of the proxy pandas modules."""

    def __init__(self):
        import pandas  # noqa: F401  (the real one: not installed yet)
        import zambezi

        for name in list(sys.modules):
            if name == "pandas" or name.startswith("pandas."):
                if name == "pandas._config.config":
                    continue  # one options registry: see the module docstring of cudf.pandas
                sys.modules[PREFIX + name] = sys.modules.pop(name)
        real = sys.modules[PREFIX + "pandas"]
        # Code in these files gets the real attributes.  The import system's
        # own frames too: "from pandas import x" first asks hasattr(pandas,
        # "x") from there, and only the value fetched next (from the
        # importing frame) reaches the importing code.
        self.denylist = tuple(os.path.join(p, "") for p in
                              list(real.__path__) + list(zambezi.__path__)) \
            + ("<frozen importlib._bootstrap>",)
        self._cache = {}
        _wrappers.setup(PREFIX)
        # pandas points its warnings at the first frame outside pandas
        # (find_stack_level); the proxies' frames must count as pandas' own
        # too, so that warnings name the user's line.  str.startswith takes
        # a tuple of prefixes.
        exc = importlib.import_module(PREFIX + "pandas.util._exceptions")
        pkg = os.path.join(real.__path__[0], "")
        exc._pkg_dir = (pkg, os.path.join(os.path.dirname(__file__), ""))
        exc._test_dir = (os.path.join(pkg, "tests", ""),)

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "pandas" or fullname.startswith("pandas."):
            try:
                real = importlib.import_module(_rename(fullname, "pandas", PREFIX + "pandas"))
            except ImportError:
                return None
            spec = importlib.machinery.ModuleSpec(
                fullname, self, is_package=hasattr(real, "__path__"))
            if hasattr(real, "__path__"):
                spec.submodule_search_locations = list(real.__path__)
            return spec
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, mod):
        name = mod.__name__
        real = importlib.import_module(_rename(name, "pandas", PREFIX + "pandas"))
        if name in _wrappers.ON_IMPORT:
            _wrappers.ON_IMPORT[name](real)
        denylist = self.denylist
        cache = {}

        checked = set()
        mdict = mod.__dict__
        real_dict = real.__dict__
        module_getattr = real_dict.get("__getattr__")
        no_path = f"module {name!r} has no attribute '__path__'"

        # Most calls come from pandas' own lazy imports inside its functions
        # ("from pandas.core.x import y" reaches this proxy module): that
        # path is kept to a frame look-up and a prefix test.
        def __getattr__(attr, _getframe=sys._getframe):
            if attr == "__path__":
                # asked by every "from pandas.x import y" where x is not a package
                raise AttributeError(no_path)
            if _getframe(1).f_code.co_filename.startswith(denylist) or \
                    (settings.disabled_blocks and settings.disabled):
                if module_getattr is not None and attr not in real_dict:
                    # (from the import system: "from pandas.api.typing import x")
                    return _proxy.run_pandas(module_getattr, attr)
                value = getattr(real, attr)
                if attr not in checked:
                    checked.add(attr)
                    # a class that user code gets unchanged (not a proxy type):
                    # kept in the proxy module itself, found from now on
                    # without calling this function
                    if isinstance(value, type) and self._wrap(value, attr, name) is value:
                        mdict[attr] = value
                return value
            try:
                return cache[attr]
            except KeyError:
                pass
            if module_getattr is not None and attr not in real_dict:
                # the module's own __getattr__ (pandas.api.typing's warns of
                # deprecated names, each time): its warnings from the user's
                # line, and nothing kept
                return self._wrap(_proxy.run_pandas(module_getattr, attr), attr, name)
            value = getattr(real, attr)   # AttributeError as the real module gives it
            wrapped = self._wrap(value, attr, name)
            try:
                cache[attr] = wrapped
            except TypeError:
                pass
            return wrapped

        mod.__getattr__ = __getattr__
        mod.__dir__ = lambda: dir(real)
        if hasattr(real, "__path__"):
            mod.__path__ = list(real.__path__)
        mod.__file__ = getattr(real, "__file__", None)
        mod._zb_real_module = real
        mod._zb_cache = cache
        mod.__class__ = _ProxyModule

    def _wrap(self, value, attr, modname):
        if isinstance(value, types.ModuleType):
            vname = value.__name__
            if vname.startswith(PREFIX + "pandas"):
                return importlib.import_module(vname[len(PREFIX):])
            if (vname == "pandas" or vname.startswith("pandas.")) and \
                    sys.modules.get(PREFIX + vname) is value:
                # a submodule imported before install (pd.testing, pd.api):
                # its proxy, as "import pandas.testing" gives
                return importlib.import_module(vname)
            return value
        if isinstance(value, type):
            if value in _proxy.SLOW_TO_PROXY:
                return _proxy.SLOW_TO_PROXY[value]
            if value.__name__ in _wrappers.UNWRAPPING and \
                    value.__module__.startswith(("pandas", PREFIX + "pandas")):
                _wrappers.unwrap_constructors(value)
            return value
        if attr.startswith("_") and modname.startswith("pandas._libs") or \
                attr.startswith("_new_"):
            # the private functions of pandas' compiled modules and its
            # _new_Index-style functions, unchanged: pickle finds those that
            # rebuild a Timestamp, NaT, Categorical or Index by their module
            # and name, and refuses any other object there
            return value
        if callable(value) and isinstance(value, (types.FunctionType, types.BuiltinFunctionType)) \
                or type(value).__name__ == "cython_function_or_method":
            fast = _wrappers.fast_function(attr) if modname == "pandas" else None
            return _proxy.wrap_function(value, f"{modname}.{attr}", fast)
        return value


class _ProxyModule(types.ModuleType):
    """A proxy module: what user code assigns to it (monkeypatch.setattr(
    pandas.core.reshape.reshape, "_Unstacker", Mock)) is assigned to the
    real module, where pandas' own code reads it.  Deleting such an
    attribute brings back the real module's own value (pytest's monkeypatch
    undoes a change that way: the proxy module's __dict__ does not hold the
    attributes it serves).  The import system's own attributes (dunders,
    the proxy submodules it sets on their parent) stay on the proxy."""

    def __setattr__(self, name, value):
        if name.startswith(("__", "_zb_")) or isinstance(value, types.ModuleType):
            types.ModuleType.__setattr__(self, name, value)
            return
        real = self._zb_real_module
        saved = self.__dict__.setdefault("_zb_saved", {})
        if name not in saved:
            saved[name] = real.__dict__.get(name, _ABSENT)
        value = _real_value(value)
        setattr(real, name, value)
        if value is saved[name]:
            del saved[name]
        self._zb_forget(name)

    def __delattr__(self, name):
        saved = self.__dict__.get("_zb_saved", {})
        if name.startswith(("__", "_zb_")) or name not in saved:
            types.ModuleType.__delattr__(self, name)
            return
        real = self._zb_real_module
        value = saved.pop(name)
        if value is _ABSENT:
            delattr(real, name)
        else:
            setattr(real, name, value)
        self._zb_forget(name)

    def _zb_forget(self, name):
        self.__dict__.pop(name, None)
        self._zb_cache.pop(name, None)


# type(pandas).__name__ is "module", as for the real one
_ProxyModule.__name__ = _ProxyModule.__qualname__ = "module"
_ABSENT = object()


def _real_value(value):
    """value as pandas' own code should see it: the pandas object behind a
    proxy class, a wrapped function or a proxy module (monkeypatch gives
    back what it read from the proxy module when it undoes a change)."""
    if isinstance(value, types.ModuleType):
        return getattr(value, "_zb_real_module", value)
    if isinstance(value, _proxy._ProxyMeta):
        return value._zb_slow_type
    if isinstance(value, types.FunctionType):
        return value.__dict__.get("_zb_slow_func", value)
    if _proxy._is_proxy(value):
        return value._zb_get_slow()
    return value


def install():
    """Put the finder first on sys.meta_path (once); returns it."""
    for finder in sys.meta_path:
        if isinstance(finder, _Accelerator):
            return finder
    finder = _Accelerator()
    sys.meta_path.insert(0, finder)
    return finder


def installed():
    return any(isinstance(f, _Accelerator) for f in sys.meta_path)
