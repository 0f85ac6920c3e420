"""The ``ARROW:schema`` key of a Parquet footer, written without pyarrow.

pyarrow stores the Arrow schema of the table it writes in the footer's
key-value metadata, and reads it back to restore what Parquet types cannot
say: a dictionary (categorical) column, a timestamp's unit and time zone.
The value is the base64 text of an Arrow IPC message holding a Schema
(the encapsulated format: 0xFFFFFFFF, the flatbuffer's length, the
flatbuffer padded to 8 bytes), as Arrow's format/Message.fbs and
Schema.fbs define it.

The flatbuffer is laid out front to back: every object is written after
the one that points to it (an offset is unsigned and points forward), a
table's vtable just before the table, every scalar at an address aligned
to its size, strings and vectors at 4 -- what flatbuffers' verifier
checks.  Only the tables a zambezi schema needs are here (a list column is
a large_list whose child is named "element", as the Parquet LIST's leaf).
"""

import base64
import struct

# Type union tags (Schema.fbs)
_INT, _FLOAT, _UTF8, _BOOL, _DATE, _TIMESTAMP, _DURATION = 2, 3, 5, 6, 8, 10, 18
_LARGE_LIST = 21
_UNITS = {"s": 0, "ms": 1, "us": 2, "ns": 3}


class _Table:
    """fields: {slot: (kind, value)}; kind 'u8' 'bool' 'i16' 'i32' 'i64',
    or 'obj' for an offset to a _Table, a str, or a list of objects."""

    def __init__(self, fields):
        self.fields = fields


_SIZES = {"u8": 1, "bool": 1, "i16": 2, "i32": 4, "i64": 8, "obj": 4}
_FMT = {"u8": "<B", "bool": "<B", "i16": "<h", "i32": "<i", "i64": "<q"}


class _Builder:
    def __init__(self):
        self.buf = bytearray()
        self.todo = []  # (where the offset is, object)

    def _align(self, n):
        while len(self.buf) % n:
            self.buf.append(0)

    def place(self, obj):
        if isinstance(obj, _Table):
            return self._table(obj)
        if isinstance(obj, str):
            self._align(4)
            at = len(self.buf)
            data = obj.encode()
            self.buf += struct.pack("<I", len(data)) + data + b"\0"
            return at
        # a vector of objects
        self._align(4)
        at = len(self.buf)
        self.buf += struct.pack("<I", len(obj))
        slots = []
        for _ in obj:
            slots.append(len(self.buf))
            self.buf += b"\0\0\0\0"
        for slot, child in zip(slots, obj):
            self._patch(slot, self.place(child))
        return at

    def _patch(self, slot, target):
        struct.pack_into("<I", self.buf, slot, target - slot)

    def _table(self, t):
        nslots = max(t.fields) + 1 if t.fields else 0
        # the table's layout relative to a start aligned to 8
        layout, pos = {}, 4
        for slot in sorted(t.fields, key=lambda s: -_SIZES[t.fields[s][0]]):
            size = _SIZES[t.fields[slot][0]]
            pos = (pos + size - 1) // size * size
            layout[slot] = pos
            pos += size
        tsize = pos
        vsize = 4 + 2 * nslots
        # the vtable, then the table at the next multiple of 8
        self._align(2)
        vt = len(self.buf)
        start = (vt + vsize + 7) // 8 * 8
        vt = start - vsize  # vtable right before the table (2-aligned: vsize is even)
        self.buf += b"\0" * (start - len(self.buf))
        struct.pack_into("<HH", self.buf, vt, vsize, tsize)
        for slot, off in layout.items():
            struct.pack_into("<H", self.buf, vt + 4 + 2 * slot, off)
        self.buf += b"\0" * tsize
        struct.pack_into("<i", self.buf, start, start - vt)
        children = []
        for slot, (kind, value) in t.fields.items():
            if kind == "obj":
                children.append((start + layout[slot], value))
            else:
                struct.pack_into(_FMT[kind], self.buf, start + layout[slot], int(value))
        for where, child in children:
            self._patch(where, self.place(child))
        return start

    def finish(self, root):
        self.buf += b"\0" * 8  # the root offset, padded
        self._patch(0, self.place(root))
        self._align(8)
        return bytes(self.buf)


def _type_of(dtype):
    """(type tag, type table) of a zambezi dtype name (the value type of a
    categorical)."""
    if dtype == "bool":
        return _BOOL, _Table({})
    if dtype.startswith(("int", "uint")):
        bits = int(dtype.lstrip("uint"))
        return _INT, _Table({0: ("i32", bits), 1: ("bool", not dtype.startswith("u"))})
    if dtype in ("float32", "float64"):
        return _FLOAT, _Table({0: ("i16", 1 if dtype == "float32" else 2)})
    if dtype in ("string", "category"):
        return _UTF8, _Table({})
    if dtype == "date32":
        return _DATE, _Table({0: ("i16", 0)})
    raise ValueError(dtype)


def _field(name, col, dict_id):
    dt = col.dtype
    if dt.startswith("timestamp"):
        fields = {0: ("i16", _UNITS[col.unit])}
        if col.timezone is not None:
            fields[1] = ("obj", col.timezone)
        tag, typ = _TIMESTAMP, _Table(fields)
    elif dt.startswith("duration"):
        tag, typ = _DURATION, _Table({0: ("i16", _UNITS[col.unit])})
    elif dt.startswith("list<"):
        tag, typ = _LARGE_LIST, _Table({})
    else:
        tag, typ = _type_of(dt)
    kids = [_field("element", col.child, dict_id)] if tag == _LARGE_LIST else []
    f = {0: ("obj", name), 1: ("bool", True), 2: ("u8", tag), 3: ("obj", typ),
         5: ("obj", kids)}
    if dt == "category":
        # the indices pandas' codes have (and pyarrow stores): int8 for
        # fewer than 2^7 categories, int16 below 2^15, else int32
        n = col.dictionary.length
        bits = 8 if n < 2**7 else 16 if n < 2**15 else 32
        index = _Table({0: ("i32", bits), 1: ("bool", True)})
        f[4] = ("obj", _Table({0: ("i64", dict_id), 1: ("obj", index),
                               2: ("bool", False)}))
    return _Table(f)


def arrow_schema(table, metadata=()):
    """The ``ARROW:schema`` value (base64 text) for an engine table, with
    the schema-level key-value pairs ``metadata`` ((str, str) pairs)."""
    names = table.names
    fields = [_field(n, table.column(i), i) for i, n in enumerate(names)]
    kvs = [_Table({0: ("obj", k), 1: ("obj", v)}) for k, v in metadata]
    schema = _Table({0: ("i16", 0), 1: ("obj", fields), 2: ("obj", kvs)})
    message = _Table({0: ("i16", 4), 1: ("u8", 1), 2: ("obj", schema), 3: ("i64", 0)})
    fb = _Builder().finish(message)
    return base64.b64encode(struct.pack("<Ii", 0xFFFFFFFF, len(fb)) + fb).decode()
