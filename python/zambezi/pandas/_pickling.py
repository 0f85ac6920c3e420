"""Pickles of the pandas objects user code holds under the accelerator:
plain pandas pickles, made with the accelerator off and read back by
pandas.read_pickle, so that they load where zambezi.pandas is not installed
and, where it is, with pandas' own classes inside pandas objects."""

import copyreg
import importlib
import io
import pickle

from zambezi.pandas._config import settings


class _PandasModule:
    """The pandas module, as a pickle names it: import_module("pandas")."""

    def __reduce__(self):
        return (importlib.import_module, ("pandas",))


class _ReadPickle:
    """pandas.read_pickle as a pickle names it: getattr(import_module(
    "pandas"), "read_pickle"), so that loading calls the read_pickle there:
    plain pandas' own, or the accelerator's, which unpickles inside pandas
    (where pickle finds pandas' own classes, so no proxy ends up inside a
    pandas object) and gives the proxy of what it read."""

    def __reduce__(self):
        return (getattr, (_PandasModule(), "read_pickle"))

    def __call__(self, buf):
        return importlib.import_module("pandas").read_pickle(buf)


_READ_PICKLE = _ReadPickle()


def pandas_pickle(obj, protocol=pickle.DEFAULT_PROTOCOL):
    """The reduce value of a pandas object: a plain pandas pickle of it,
    made with the accelerator off (pickle finds pandas' own classes and
    functions by name), read by pandas.read_pickle, so it loads where
    zambezi.pandas is not installed."""
    disabled_depth = getattr(settings.local, "disabled", 0)
    settings.local.disabled = disabled_depth + 1
    settings.count_disabled(1)
    try:
        buf = io.BytesIO()
        pickler = pickle.Pickler(buf, protocol=max(protocol, 2))
        # pandas' own reduction inside (this function is copyreg's for
        # Categorical and CategoricalDtype)
        pickler.dispatch_table = {t: f for t, f in copyreg.dispatch_table.items()
                                  if f is not pandas_pickle}
        pickler.dump(obj)
        data = buf.getvalue()
    finally:
        settings.local.disabled = disabled_depth
        settings.count_disabled(-1)
    return (_READ_PICKLE, (io.BytesIO(data),))
