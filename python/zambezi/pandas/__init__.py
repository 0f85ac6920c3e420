"""zambezi.pandas: unmodified pandas code served by zambezi where it can, by
real pandas otherwise, with pandas' answers.

Entry points (each installs the accelerator; afterwards ``import pandas``
gives the accelerated module):

    python -m zambezi.pandas script.py [args]      (or -m module; --profile)
    import zambezi.pandas; zambezi.pandas.install()
    %load_ext zambezi.pandas                       (IPython / Jupyter)
    pytest -p zambezi.pandas

Importing this package alone changes nothing.  See docs/pandas-accelerator.md.
"""

__all__ = ["install", "is_installed", "load_ipython_extension", "profile_report"]


def install():
    """Install the accelerator: from now on ``import pandas`` (and
    ``pandas.*``) in user code and third-party libraries gives proxy
    modules whose DataFrame, Series, Index, GroupBy ... run on zambezi when
    it supports the call and on pandas otherwise.  Call it before the first
    ``import pandas`` of the code to accelerate (a ``pd`` imported earlier
    stays the real module).  Reads ZAMBEZI_PANDAS_FALLBACK, _DEBUG,
    _MIN_ROWS, _DEVICE (where zambezi's frames live: "auto", the default,
    puts those of at least zambezi.get_auto_threshold() bytes on a GPU when
    there is one; "cuda" all of them, DeviceError without a GPU; "cpu")
    and _PROFILE_JSON (a file the profile is written to at exit) from the
    environment.  Calling it again does nothing.

    Examples
    --------
    >>> import zambezi.pandas
    >>> zambezi.pandas.install()          # doctest: +SKIP
    >>> import pandas as pd               # doctest: +SKIP
    >>> type(pd.DataFrame({"a": [1]})).__name__   # doctest: +SKIP
    'DataFrame'
    """
    from zambezi.pandas import _module
    from zambezi.pandas._config import settings

    if _module.installed():
        return
    settings.read_env()
    if settings.profile_json:
        import atexit
        from zambezi.pandas._profile import recorder
        recorder.lines = True
        atexit.register(recorder.write_json, settings.profile_json)
    import zambezi
    from zambezi.pandas._devices import placement

    placement.setup(settings.device, zambezi.devices())
    _module.install()


def is_installed():
    """Whether install() has run in this process.

    Examples
    --------
    >>> import zambezi.pandas
    >>> zambezi.pandas.is_installed() in (True, False)
    True
    """
    from zambezi.pandas import _module

    return _module.installed()


def load_ipython_extension(ipython):
    """``%load_ext zambezi.pandas``: install the accelerator in an IPython or
    Jupyter session (before the session imports pandas), and register the
    cell magic ``%%zambezi.pandas.profile``, which runs its cell and prints
    what zambezi and pandas served there, per function and per line of the
    cell (the calls also count in the session's profile_report()).

    Examples
    --------
    >>> get_ipython().run_line_magic("load_ext", "zambezi.pandas")   # doctest: +SKIP
    >>> get_ipython().run_cell_magic(                                 # doctest: +SKIP
    ...     "zambezi.pandas.profile", "", "df.groupby('k').v.sum()")
    zambezi.pandas profile: 2 calls served by zambezi, 0 by pandas
    ...
    """
    install()
    if ipython is not None:
        from zambezi.pandas._magics import register

        register(ipython)


def profile_report(as_dict=False):
    """What the accelerator did so far in this process: per function, the
    calls zambezi served and pandas served, their time, and the reasons for
    each fallback, then the same per line of the user's code that made the
    calls (recorded while a profile is on: ``--profile``,
    ``--profile-json``, ZAMBEZI_PANDAS_PROFILE_JSON, the cell magic); a
    text table, or a dict (as_dict=True) with top-level ``fast_calls``,
    ``slow_calls``, ``functions`` and ``lines`` (what ``--profile-json``
    writes; each line entry has ``file``, ``line``, ``code``, ``function``
    and the counts).

    Examples
    --------
    >>> import zambezi.pandas
    >>> sorted(zambezi.pandas.profile_report(as_dict=True))
    ['fast_calls', 'functions', 'lines', 'slow_calls']
    """
    from zambezi.pandas._profile import recorder

    return recorder.as_dict() if as_dict else recorder.report()


# pytest -p zambezi.pandas: install before conftest.py files import pandas.
def pytest_load_initial_conftests(early_config, parser, args):
    install()
