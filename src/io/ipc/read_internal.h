/*
 * read_internal.h -- what the Arrow IPC reader's files share: read.c (the
 * file, its messages, batch by batch), read_schema.c (the schema's
 * fields) and read_whole.c (several batches assembled straight into whole
 * columns).  Private to src/io/ipc; the macros give the shared helpers the
 * library's internal prefix, so their short names stay readable.
 */
#ifndef ZAMBEZI_IO_IPC_READ_INTERNAL_H
#define ZAMBEZI_IO_IPC_READ_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/internal.h"
#include "io/ipc/fb.h"
#include "io/ipc/ipc.h"

typedef struct ipc_file {
  const uint8_t *base;
  int64_t size;
  void *map; /* munmap'ed at the end when not NULL */
  void *copy; /* zb_free'd at the end when not NULL */
  void **owned; /* decompressed or realigned blocks, zb_free'd at the end */
  int64_t n_owned, cap_owned;
  int64_t refcount; /* atomic */
} ipc_file;

enum { K_FIXED, K_BOOL, K_STRING, K_VIEW, K_NULL, K_DICT, K_UNSUPPORTED, K_LIST };

typedef struct ipc_field {
  char *name;        /* from zb_malloc */
  int kind;
  int width;         /* K_FIXED: bytes per value; K_STRING: offset bytes; K_DICT: index bytes */
  char format[300];  /* the C Data Interface format (K_DICT: the index's) */
  char value_format[2]; /* K_DICT: "u" or "U" */
  int value_width;      /* K_DICT: the values' offset bytes */
  int value_kind;       /* K_DICT: K_STRING or K_VIEW */
  int64_t dict_id;
  int64_t n_nodes, n_buffers; /* this field's share of a record batch */
  int64_t n_views;            /* its view types: each takes variadic buffers too */
  bool layout_known;          /* n_nodes and n_buffers are known */
  char why[160];              /* K_UNSUPPORTED: what the type is */
  /* K_LIST (List or LargeList; width: its offset bytes): the child's kind
   * (K_FIXED, K_BOOL or K_STRING), width and format */
  int child_kind, child_width;
  char child_format[300];
} ipc_field;

typedef struct reader {
  const char *name; /* the file, for messages */
  ipc_file *f;
  zb_error *err;
  ipc_field *fields;
  int64_t n_fields;
  char *pandas; /* the "pandas" metadata, from zb_malloc */
  /* the selected columns: field indices */
  int64_t *sel;
  int64_t n_sel;
  /* messages */
  int64_t *batch_at, *dict_at; /* offsets of the messages in the file */
  int64_t n_batches, n_dicts;
  void *view_ctx; /* the view_job converting utf8_view columns */
} reader;

#define corrupt zb__ipc_corrupt
#define oom zb__ipc_oom
#define read_message zb__ipc_read_message
#define message_header zb__ipc_message_header
#define locate_buffer zb__ipc_locate_buffer
#define field_start zb__ipc_field_start
#define batch_header zb__ipc_batch_header
#define import_failed zb__ipc_import_failed
#define read_batches zb__ipc_read_batches
#define read_mixed zb__ipc_read_mixed
#define parse_field zb__ipc_parse_field
#define batch_message zb__ipc_batch_message

/* A ParseError naming the file. */
zb_status corrupt(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
zb_status oom(reader *r);
/* Field idx of the schema (fb) into out (read_schema.c). */
zb_status parse_field(reader *r, const zb__fbt *fb, int64_t idx, ipc_field *out);
/* The message at byte `at`: its flatbuffer, its body's offset and length;
 * *eos at the end-of-stream marker. */
zb_status read_message(reader *r, int64_t at, zb__fbt *msg, int64_t *body, int64_t *body_len,
                       bool *eos);
/* The header of a message of type `want`. */
zb_status message_header(reader *r, const zb__fbt *msg, int want, zb__fbt *hdr, int64_t at);
/* Buffer bi of a batch body: where it lies, its length and codec. */
zb_status locate_buffer(reader *r, const uint8_t *body, int64_t body_len, const zb__fbv *bufs,
                        int64_t bi, int codec, const char *col, const uint8_t **src_out,
                        int64_t *n_out, int64_t *ulen_out, int *codec_out);
/* The first node, buffer and view column of field f in a batch. */
zb_status field_start(reader *r, int64_t f, const zb__fbv *variadic, const char *what,
                      int64_t *node, int64_t *buf, int64_t *view);
/* Record batch b's header and body, after a Ctrl-C check; what gets
 * "record batch b" for messages. */
zb_status batch_message(reader *r, int64_t b, zb__fbt *hdr, int64_t *body, int64_t *body_len,
                        char *what, size_t what_size);
/* The header of a RecordBatch: rows, nodes, buffers, variadic counts, codec. */
zb_status batch_header(reader *r, const zb__fbt *rb, const char *what, int64_t *length,
                       zb__fbv *nodes, zb__fbv *bufs, zb__fbv *variadic, int *codec);
/* An import error prefixed with the file and `what`. */
zb_status import_failed(reader *r, zb_status st, const char *what);
/* The selected columns, batch by batch, concatenated. */
zb_status read_batches(reader *r, zb_table **out);
/* Several batches: the columns read_whole.c assembles, the others through
 * read_batches, in the selected order. */
zb_status read_mixed(reader *r, zb_table **out);

#endif /* ZAMBEZI_IO_IPC_READ_INTERNAL_H */
