"""The index through Arrow: pandas' schema metadata, written and read.

An Arrow table has columns and no index.  pyarrow's ``Table.from_pandas``
carries a pandas index in two ways, and zambezi does the same both ways:

- a ``RangeIndex`` is metadata only: ``{"kind": "range", "name", "start",
  "stop", "step"}`` in ``index_columns``;
- any other index travels as columns after the data columns, one per
  level, named by the level's name (when it is not also a column's name)
  or ``__index_level_i__``, listed by those names in ``index_columns``.

The metadata is a JSON document under the schema metadata key
``b"pandas"`` (pyarrow's ``pandas_compat`` format: ``index_columns``,
``column_indexes``, ``columns`` with each column's ``pandas_type`` and
``numpy_type``), so ``table.to_pandas()`` rebuilds the index, and
``zb.from_arrow`` reads it back (``restore_index``).  The ``numpy_type``
of each column is the dtype ``DataFrame.to_pandas()`` gives it (``Int64``
for an integer column with nulls ...), so that pyarrow's ``to_pandas``
gives the same frame.

``DataFrame.__arrow_c_stream__`` exports the same table and metadata
(the C engine copies the metadata bytes into the exported ArrowSchema:
``zb_table_export_stream_with_metadata``), so pyarrow, polars and duckdb
see the index columns as pyarrow's ``pa.table(pandas_frame)`` would give
them; a RangeIndex adds no column.
"""

import json
import struct

from zambezi import _core

_PANDAS_KEY = b"pandas"


def encode_metadata(pairs):
    """Schema metadata {bytes: bytes} in the Arrow C data interface's
    encoding (int32 count, then per pair int32 length + bytes twice)."""
    parts = [struct.pack("=i", len(pairs))]
    for key, value in pairs.items():
        parts += [struct.pack("=i", len(key)), key, struct.pack("=i", len(value)), value]
    return b"".join(parts)


def _column_meta(name, field_name, col):
    """pandas_compat's description of one column, with the dtype
    DataFrame.to_pandas() gives it."""
    dt = col.dtype
    meta = None
    has_nulls = col.null_count > 0
    if dt.startswith(("int", "uint")):
        pandas_type = dt
        numpy_type = dt.capitalize().replace("Uint", "UInt") if has_nulls else dt
    elif dt == "bool":
        pandas_type, numpy_type = "bool", ("boolean" if has_nulls else "bool")
    elif dt in ("float32", "float64"):
        pandas_type = numpy_type = dt
    elif dt == "string":
        pandas_type, numpy_type = "unicode", "object"
    elif dt == "category":
        pandas_type, numpy_type = "categorical", "int32"
        meta = {"num_categories": col.dictionary.length, "ordered": False}
    elif dt == "date32":
        pandas_type, numpy_type = "date", "object"
    elif dt.startswith("duration"):  # as pandas writes it
        pandas_type, numpy_type = "object", f"timedelta64[{col.unit}]"
    elif dt.startswith("list<"):  # as pyarrow describes a list: list[<its values' type>]
        inner = _column_meta(None, None, col.child)["pandas_type"]
        pandas_type, numpy_type = f"list[{inner}]", "object"
    else:  # timestamp[unit] / timestamp[unit, tz=zone]
        numpy_type = f"datetime64[{col.unit}]"
        if col.timezone is not None:
            pandas_type, meta = "datetimetz", {"timezone": col.timezone}
        else:
            pandas_type = "datetime"
    return {"name": name, "field_name": field_name, "pandas_type": pandas_type,
            "numpy_type": numpy_type, "metadata": meta}


def _level_field(name, i, column_names):
    # pyarrow's _index_level_name: the level's name unless a column has it
    if name is not None and str(name) not in column_names:
        return str(name)
    return f"__index_level_{i}__"


def export_table(df):
    """(engine Table, metadata bytes): df's columns, then its index levels
    as columns unless it is a RangeIndex, and pandas' schema metadata."""
    table, meta = export_parts(df)
    return table, encode_metadata({_PANDAS_KEY: json.dumps(meta).encode()})


def export_parts(df, index=None):
    """(engine Table, pandas metadata dict) as pyarrow's
    ``Table.from_pandas(df, preserve_index=index)`` has them: index None
    keeps a RangeIndex as metadata only, True stores it as a column too,
    False leaves the index out."""
    from zambezi import index as _ix

    t = df._table
    names = t.names
    cols = [t.column(i) for i in range(len(names))]
    columns_meta = [_column_meta(nm, nm, c) for nm, c in zip(names, cols)]
    idx = df._index
    if index is False:
        index_columns = []
        table = t
    elif isinstance(idx, _ix.RangeIndex) and index is None:
        index_columns = [{"kind": "range", "name": idx.name, "start": idx.start,
                          "stop": idx.stop, "step": idx.step}]
        table = t
    else:
        index_columns = []
        levels = idx._levels()
        taken = set(names)
        for i, (lname, level) in enumerate(zip(idx.names, levels)):
            field = _level_field(lname, i, taken)
            taken.add(field)
            index_columns.append(field)
            columns_meta.append(_column_meta(None if lname is None else str(lname), field,
                                             level))
        if levels and levels[0].device != t.device:
            levels = [c.to_device(t.device) for c in levels]
        table = _core.table_from_columns(cols + list(levels), names + index_columns)
    meta = {
        "index_columns": index_columns,
        "column_indexes": [{"name": None, "field_name": None, "pandas_type": "unicode",
                            "numpy_type": "object", "metadata": {"encoding": "UTF-8"}}],
        "columns": columns_meta,
        "attributes": {},
        "creator": {"library": "zambezi", "version": _version()},
    }
    return table, meta


def _version():
    from zambezi import __version__

    return __version__


def pandas_metadata(obj):
    """The decoded b"pandas" schema metadata of an Arrow object that shows
    its schema to Python (pyarrow's Table, RecordBatch ...), or None."""
    schema = getattr(obj, "schema", None)
    metadata = getattr(schema, "metadata", None)
    if not isinstance(metadata, dict):
        return None
    raw = metadata.get(_PANDAS_KEY)
    if raw is None:
        return None
    try:
        meta = json.loads(raw)
    except ValueError:
        return None
    return meta if isinstance(meta, dict) else None


def restore_index(table, meta):
    """(data Table, index or None) from an imported engine table and its
    pandas metadata: the index columns are taken out and become the
    index; a range entry becomes a RangeIndex when its length matches the
    rows (pyarrow likewise ignores one that does not, as after slicing).
    Metadata that names missing columns is ignored."""
    from zambezi import index as _ix

    entries = meta.get("index_columns") if meta else None
    if not entries:
        return table, None
    names = table.names
    by_field = {c.get("field_name"): c.get("name")
                for c in meta.get("columns") or [] if isinstance(c, dict)}
    if all(isinstance(e, dict) for e in entries):
        if len(entries) != 1 or entries[0].get("kind") != "range":
            return table, None
        e = entries[0]
        try:
            r = range(int(e["start"]), int(e["stop"]), int(e["step"]))
        except (KeyError, TypeError, ValueError):
            return table, None
        if len(r) != table.num_rows:
            return table, None
        return table, _ix.RangeIndex._of(r, e.get("name"))
    if not all(isinstance(e, str) and e in names for e in entries):
        return table, None
    positions = [names.index(e) for e in entries]
    level_names = []
    for field in entries:
        if field in by_field:
            name = by_field[field]
        else:  # not described: pyarrow's rule for unnamed levels
            name = None if field.startswith("__index_level_") else field
        level_names.append(name)
    levels = [table.column(p) for p in positions]
    keep = [i for i in range(len(names)) if i not in positions]
    data = table.select(keep)
    return data, _ix.Index._from_columns(levels, level_names)
