"""What the libraries that take dataframes ask of a zambezi frame: narwhals
(and through it scikit-learn, plotly express and altair), the dataframe
interchange protocol (seaborn), pandas' plotting (``df.plot``) and
``df.style`` (Jupyter).  A mixin each for DataFrame and Series.

All of these hand the library a **pandas copy** of the data
(``to_pandas()``: numeric columns without nulls share their buffers, the
rest is converted once per call), because each of these libraries is
written against pandas' behaviour and pandas is what they test against:

- narwhals: ``__narwhals_dataframe__`` / ``__narwhals_series__`` return
  narwhals' own compliant pandas frame / series over the pandas copy, so
  ``nw.from_native(df)`` is an eager narwhals DataFrame.  narwhals then
  computes with pandas, and ``nw.to_native`` gives the pandas object, not
  a zambezi one (a compliant level that runs narwhals' expressions on
  zambezi's engine is not written yet).
- ``__dataframe__``: the interchange protocol object of the pandas copy.
  The protocol is deprecated; consumers that know the Arrow PyCapsule
  interface (pandas' ``from_dataframe``, pyarrow, polars, duckdb) read
  ``__arrow_c_stream__`` instead, without copies.
- ``plot``: pandas' plot accessor over the pandas copy (pandas' plotting
  backend contract: the same kinds, arguments and matplotlib objects).
- ``style``: pandas' Styler over the pandas copy: a rendering, not a view
  (changing the frame afterwards does not change the Styler).

pandas (and for plots matplotlib) must be installed; a missing one raises
UnsupportedError naming it.  None of these is a dependency of zambezi.
"""

from zambezi.errors import UnsupportedError


def _need(module, what):
    try:
        return __import__(module)
    except ImportError as e:
        raise UnsupportedError(f"{what} needs {module}, which is not installed "
                               f"(pip install {module})") from e


def _pandas(obj, what):
    _need("pandas", what)
    return obj.to_pandas()


class _Shared:
    __slots__ = ()

    @property
    def plot(self):
        """pandas' plot accessor over this object's data, through matplotlib:
        ``df.plot()``, ``df.plot(kind="bar")``, ``df.plot.scatter(x=, y=)``,
        ``s.plot.hist(bins=20)``... with pandas' kinds (line, bar, barh,
        hist, box, kde/density, area, scatter, hexbin, pie) and arguments;
        it returns matplotlib Axes as pandas does.  The data is handed to
        pandas as a pandas copy (pandas' plotting is the contract plotting
        backends implement); kde needs scipy, as in pandas.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> ax = zb.DataFrame({"x": [1, 2, 3], "y": [2.0, 4.0, 8.0]}).plot(x="x", y="y")
        >>> ax.get_lines()[0].get_ydata().tolist()
        [2.0, 4.0, 8.0]
        """
        _need("matplotlib", "plot")
        return _pandas(self, "plot").plot


class FrameEcosystem(_Shared):
    """narwhals, the interchange protocol, plot and style on zambezi.DataFrame."""

    __slots__ = ()

    def _narwhals_compliant(self):
        nw = _need("narwhals", "narwhals")
        return nw.from_native(_pandas(self, "narwhals"), eager_only=True)._compliant_frame

    def __narwhals_dataframe__(self):
        """narwhals' compliant frame over a pandas copy of the data, so that
        ``narwhals.from_native(df)`` gives an eager narwhals DataFrame (and
        scikit-learn, plotly express and altair, which go through narwhals,
        take zambezi frames).  See zambezi._ecosystem.

        Examples
        --------
        >>> import narwhals as nw
        >>> nw.from_native(zb.DataFrame({"a": [1, 2], "b": ["x", "y"]})).columns
        ['a', 'b']
        """
        return self._narwhals_compliant()

    def __dataframe__(self, nan_as_null=False, allow_copy=True):
        """The dataframe interchange protocol object (what seaborn reads):
        pandas' interchange object over a pandas copy of the data.  The
        protocol is deprecated; ``__arrow_c_stream__`` is the zero-copy
        route and pandas' ``from_dataframe`` prefers it.

        Examples
        --------
        >>> zb.DataFrame({"a": [1, 2], "b": [0.5, None]}).__dataframe__().column_names()
        ['a', 'b']
        """
        return _pandas(self, "__dataframe__").__dataframe__(nan_as_null=nan_as_null,
                                                           allow_copy=allow_copy)

    @property
    def style(self):
        """pandas' Styler (Jupyter's styled HTML: ``highlight_max``,
        ``background_gradient``, ``format``...) over a pandas copy of the
        frame.  It renders the values as they were when ``style`` was read.

        Examples
        --------
        >>> html = zb.DataFrame({"a": [1, 2]}).style.highlight_max().to_html()
        >>> "<table" in html
        True
        """
        return _pandas(self, "style").style


class SeriesEcosystem(_Shared):
    """narwhals and plot on zambezi.Series."""

    __slots__ = ()

    def _narwhals_compliant(self):
        nw = _need("narwhals", "narwhals")
        return nw.from_native(_pandas(self, "narwhals"), series_only=True)._compliant_series

    def __narwhals_series__(self):
        """narwhals' compliant series over a pandas copy of the data, so that
        ``narwhals.from_native(s, series_only=True)`` gives a narwhals Series
        (plotly express takes zambezi Series as ``x=``/``y=``).  See
        zambezi._ecosystem.

        Examples
        --------
        >>> import narwhals as nw
        >>> nw.from_native(zb.Series([1, 2], name="a"), series_only=True).sum()
        np.int64(3)
        """
        return self._narwhals_compliant()
