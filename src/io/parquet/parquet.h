/*
 * parquet.h -- what the Parquet reader's files share (internal): the parts
 * of the footer it uses (meta.c decodes them from the Thrift compact
 * protocol), page headers, and the chunk decoder (page.c) that read.c runs
 * on the thread pool for every (row group, column).
 *
 * Invariant of everything decoded here: a string is a pointer into the
 * footer's bytes plus a length checked against them; a list's element
 * count was checked against the bytes left (each element takes at least
 * one byte) before its array was allocated.
 */
#ifndef ZAMBEZI_IO_PARQUET_PARQUET_H
#define ZAMBEZI_IO_PARQUET_PARQUET_H

#include "core/internal.h"

/* Physical types (parquet.thrift Type). */
enum {
  PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_INT96 = 3, PQ_FLOAT = 4, PQ_DOUBLE = 5,
  PQ_BYTE_ARRAY = 6, PQ_FIXED_LEN_BYTE_ARRAY = 7
};
/* Codecs (CompressionCodec). */
enum { PQ_UNCOMPRESSED = 0, PQ_SNAPPY = 1, PQ_GZIP = 2, PQ_LZO = 3, PQ_BROTLI = 4,
       PQ_LZ4 = 5, PQ_ZSTD = 6, PQ_LZ4_RAW = 7 };
/* Encodings. */
enum { PQ_PLAIN = 0, PQ_PLAIN_DICTIONARY = 2, PQ_RLE = 3, PQ_BIT_PACKED = 4,
       PQ_DELTA_BINARY_PACKED = 5, PQ_DELTA_LENGTH_BYTE_ARRAY = 6, PQ_DELTA_BYTE_ARRAY = 7,
       PQ_RLE_DICTIONARY = 8, PQ_BYTE_STREAM_SPLIT = 9 };
/* Page types. */
enum { PQ_DATA_PAGE = 0, PQ_INDEX_PAGE = 1, PQ_DICTIONARY_PAGE = 2, PQ_DATA_PAGE_V2 = 3 };

/* Logical types we map (from LogicalType or the legacy ConvertedType). */
enum { PQ_LT_NONE = 0, PQ_LT_STRING, PQ_LT_INT, PQ_LT_DATE, PQ_LT_TIMESTAMP, PQ_LT_OTHER,
       PQ_LT_DECIMAL, PQ_LT_FLOAT16 };

typedef struct pq_str {
  const char *p;
  int64_t n;
} pq_str;

typedef struct pq_schema {
  int32_t type;        /* physical; -1 for a group */
  int32_t type_length;
  int32_t repetition;  /* 0 REQUIRED, 1 OPTIONAL, 2 REPEATED; -1 absent */
  int32_t num_children;
  int32_t converted;   /* -1 absent */
  int32_t logical;     /* PQ_LT_* */
  int32_t int_bits;    /* PQ_LT_INT */
  bool int_signed;
  bool ts_utc;         /* PQ_LT_TIMESTAMP */
  int32_t ts_unit;     /* zb_time_unit */
  int32_t scale, precision; /* PQ_LT_DECIMAL (or the legacy element fields) */
  bool lt_list, lt_map;      /* a LIST / MAP LogicalType annotation (groups) */
  pq_str name;
} pq_schema;

typedef struct pq_chunk {
  int32_t type, codec;
  int64_t num_values, total_uncompressed, total_compressed;
  int64_t data_page_offset, dictionary_page_offset; /* -1 absent */
  bool has_meta;
  bool external; /* file_path set: data in another file */
  /* Statistics (min_value / max_value: the type's own order), pointing
   * into the footer; p NULL when absent.  null_count -1 when absent. */
  pq_str stat_min, stat_max;
  int64_t null_count;
} pq_chunk;

typedef struct pq_row_group {
  int64_t num_rows;
  int64_t num_columns;
  pq_chunk *columns;
} pq_row_group;

typedef struct pq_meta {
  int64_t num_rows;
  int64_t num_schema;
  pq_schema *schema;
  int64_t num_row_groups;
  pq_row_group *row_groups;
  pq_str pandas; /* key-value "pandas", p NULL if none */
  pq_str arrow_schema; /* key-value "ARROW:schema" (base64), p NULL if none */
} pq_meta;

typedef struct pq_page_header {
  int32_t type;
  int32_t uncompressed_size, compressed_size;
  int32_t num_values; /* data pages: values including nulls; dictionary: entries */
  int32_t encoding;
  int32_t def_encoding, rep_encoding;            /* v1 */
  int32_t num_nulls, num_rows, def_len, rep_len; /* v2 */
  bool is_compressed;                            /* v2 (default true) */
  bool has_crc;
  uint32_t crc;                                  /* CRC-32 of the page's stored bytes */
} pq_page_header;

/* CRC-32 (gzip's) of p[0, n) (crc.c); _update continues crc (the CRC-32
 * of the bytes before) over p[0, n). */
uint32_t zb__pq_crc32(const uint8_t *p, int64_t n);
uint32_t zb__pq_crc32_update(uint32_t crc, const uint8_t *p, int64_t n);

/* Decode the footer's FileMetaData from buf[0, n) (the bytes stay borrowed
 * by *m's strings).  On failure, *m holds nothing to free and err says
 * what was wrong (the caller adds the file's name). */
zb_status zb__pq_meta_decode(const uint8_t *buf, int64_t n, pq_meta *m, zb_error *err);
void zb__pq_meta_free(pq_meta *m);

/* The writer's Arrow column types from m->arrow_schema (arrow_hints.c):
 * an empty table, or *types NULL when there is none or it cannot be read
 * (not an error: the columns keep their Parquet types).  ZB_ENOMEM only. */
zb_status zb__pq_arrow_types(const pq_str *b64, zb_table **types, zb_error *err);

/* Where chunk k's first page starts (its dictionary page, if any, else
 * its first data page), checked with its length against the file's data
 * (file_size bytes before the footer). */
zb_status zb__pq_chunk_start(const pq_chunk *k, int64_t file_size, int64_t *start,
                             zb_error *err);

/* Decode a page header at buf[0, n); *used receives its length. */
zb_status zb__pq_page_header(const uint8_t *buf, int64_t n, pq_page_header *h, int64_t *used,
                             zb_error *err);

/* DELTA_BINARY_PACKED (delta.c): exactly n values (the header must say
 * n) from p[0, len) into out, as two's complement; *used receives the
 * bytes read.  ZB_EPARSE when corrupt. */
zb_status zb__pq_delta_decode(const uint8_t *p, int64_t len, int64_t n, uint64_t *out,
                              int64_t *used, zb_error *err);

/* ---- decoding one column chunk (page.c) -------------------------------- */

/* What a column's values become. */
typedef enum pq_out_kind {
  PQ_OUT_FIXED = 0, /* values of out_width bytes */
  PQ_OUT_BOOL = 1,  /* one byte per value (packed into bits at the end) */
  PQ_OUT_STRING = 2 /* offsets + the chunk's own chars */
} pq_out_kind;

/* A chunk to decode and where its rows go. */
/* Buffers a worker reuses from one chunk to the next: the decompressed
 * page and the dictionary indices (a fresh block each chunk costs its page
 * faults, the most of a read of small row groups). */
typedef struct pq_scratch {
  uint8_t *page;
  int64_t page_cap;
  uint32_t *u32;
  int64_t u32_cap;
} pq_scratch;

void zb__pq_scratch_free(pq_scratch *s);

typedef struct pq_job {
  const uint8_t *file;    /* the whole file */
  int64_t file_size;
  const pq_chunk *chunk;
  int32_t phys;           /* physical type */
  int32_t max_def;        /* flat: 0 (REQUIRED) or 1 (OPTIONAL); list: the leaf's */
  int32_t max_rep;        /* 0 flat; 1 a list column (rows below are then slots:
                             one per level entry, as the chunk counts values) */
  pq_out_kind kind;
  int out_width;          /* PQ_OUT_FIXED: 1, 2, 4 or 8 */
  int32_t type_length;    /* FIXED_LEN_BYTE_ARRAY: bytes per value */
  int32_t decimal_scale;  /* >= 0: a DECIMAL read as float64 (scaled); -1 otherwise */
  bool float16;           /* FIXED_LEN_BYTE_ARRAY(2) FLOAT16 read as float32 */
  int64_t rows;           /* rows of the row group */
  /* Destinations, already offset to the row group's first row: */
  uint8_t *values;        /* FIXED: rows * out_width bytes; BOOL: rows bytes */
  uint8_t *valid;         /* rows bytes (1 = valid), NULL when max_def == 0 */
  uint8_t *defs, *reps;   /* max_rep > 0: rows bytes each, the slots' levels */
  int64_t *offsets;       /* STRING: rows entries: the end of each value in chars */
  /* Results: */
  uint8_t *chars;         /* STRING: the chunk's bytes (zb_malloc; caller frees) */
  int64_t chars_len;
  int64_t chars_base;     /* set by read.c: the column's chars before this chunk's */
  int64_t nulls;
  volatile int *cancel;
  pq_scratch *scratch;    /* the decoding worker's, or NULL: the decode's own */
  /* STRING, a chunk whose pages all were dictionary-encoded: the values'
   * dictionary indices and the dictionary, kept for
   * zb__pq_gather_strings (chars is then NULL, chars_len their total, and
   * offsets are not written yet) */
  struct pq_deferred *deferred;
} pq_job;

/* A deferred chunk's strings (job->deferred): the characters written at
 * chars + job->chars_base, which the chunk's chars_len bytes there are its
 * own (no byte written past them), and job->offsets the column's; the
 * deferred state freed.  No failure: every index was checked. */
void zb__pq_gather_strings(pq_job *job, uint8_t *chars);
/* Free job->deferred (NULL afterwards); safe when there is none. */
void zb__pq_deferred_free(pq_job *job);

/* Decode job's chunk.  On failure err says what (the caller adds file,
 * column and row group); job->chars may still need freeing. */
zb_status zb__pq_decode_chunk(pq_job *job, zb_error *err);

#endif /* ZAMBEZI_IO_PARQUET_PARQUET_H */
