/*
 * read_internal.h -- what the Arrow IPC reader's files share: read.c (the
 * file, its messages, batch by batch), read_schema.c (the schema's
 * fields), read_lists.c (the list columns of a batch) and read_whole.c
 * (several batches assembled straight into whole columns).  Private to src/io/ipc; the macros give the shared helpers the
 * library's internal prefix, so their short names stay readable.
 */
#ifndef ZAMBEZI_IO_IPC_READ_INTERNAL_H
#define ZAMBEZI_IO_IPC_READ_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/internal.h"
#include "io/file_sink.h"
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
  /* a mapped file: registered (file_sink.h) while mapped, so that writing
   * to its name makes a new file instead of truncating these pages */
  zb__mapped_file node;
  bool registered;
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
  /* K_LIST (List or LargeList; width: its offset bytes): depth list
   * levels (1: a list of flat values, 2: a list of lists...), level l's
   * offset bytes (4: List, 8: LargeList; level 0 is width), then the leaf's
   * kind (K_FIXED, K_BOOL, K_STRING or K_VIEW: utf8_view, converted to
   * large_utf8), width and format */
  int depth;
  uint8_t level_width[ZB_LIST_MAX_DEPTH];
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

/* An inner level of a list column of a batch (lists of lists). */
typedef struct ipc_level {
  int64_t length, null_count;
  const void *bufs[2]; /* validity (NULL: no nulls), offsets */
  int64_t lens[2];
} ipc_level;

/* One column of a batch, as the C Data Interface will see it. */
typedef struct ipc_col {
  int64_t length, null_count;
  const void *bufs[3];
  int64_t lens[3];
  /* a view column (utf8_view): its views in bufs[1], its variadic data
   * buffers here; converted to large_utf8 in bufs[1], bufs[2] */
  const void **vbufs;
  int64_t *vlens;
  int64_t n_v;
  /* a list column of utf8_view values: its leaf as a view column,
   * converted with the flat ones, then moved to child_bufs (from
   * zb_calloc, freed with the batch) */
  struct ipc_col *leaf;
  /* a list column: its inner levels 1 .. depth-1 (n_levels of them, from
   * zb_malloc, freed with the batch), its leaf's node and buffers */
  ipc_level *levels;
  int n_levels;
  int64_t child_length, child_null_count;
  const void *child_bufs[3];
  int64_t child_lens[3];
} ipc_col;

typedef struct ipc_batch {
  int64_t length;
  ipc_col *cols; /* n_sel of them (a dictionary batch: 1) */
} ipc_batch;

typedef struct ipc_task {
  const uint8_t *src;
  int64_t n;
  uint8_t *dst;
  int64_t cap;
  int codec; /* 0 LZ4_FRAME, 1 ZSTD, -1 copy */
} ipc_task;

typedef struct plan {
  ipc_task *tasks;
  int64_t n_tasks, cap_tasks;
  /* results of the tasks */
  zb_status status;
  zb_error err;
  pthread_mutex_t lock;
} plan;

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
#define g_zeros zb__ipc_zeros
#define file_alloc zb__ipc_file_alloc
#define plan_buffer zb__ipc_plan_buffer
#define check_strings zb__ipc_check_strings
#define plan_list zb__ipc_plan_list
#define check_list zb__ipc_check_list
#define list_schema zb__ipc_list_schema
#define list_array zb__ipc_list_array
#define merge_list zb__ipc_merge_list

struct ArrowSchema;
struct ArrowArray;

/* Stands in for the buffers of empty columns (offsets need one zero). */
extern const int64_t g_zeros[2];

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
/* A new block of size bytes owned by f, freed with it (NULL when out of
 * memory); not thread-safe. */
void *file_alloc(ipc_file *f, int64_t size);
/* A buffer of a batch: the place in the file (checked), or a task's block
 * (read.c). */
zb_status plan_buffer(reader *r, plan *p, const uint8_t *body, int64_t body_len,
                      const zb__fbv *bufs, int64_t bi, int codec, const char *col,
                      const void **out, int64_t *out_len);
/* Strings' last offset inside their characters (after the tasks ran). */
zb_status check_strings(reader *r, const ipc_col *c, int width, const char *col,
                        const char *what);
/* A list column of a batch (read_lists.c): its nodes and buffers from
 * node, buf, each checked to be as long as its length needs. */
zb_status plan_list(reader *r, plan *p, const uint8_t *body, int64_t body_len,
                    const zb__fbv *nodes, const zb__fbv *bufs, const zb__fbv *variadic,
                    int64_t node, int64_t buf, int64_t view, int codec, const ipc_field *fd,
                    ipc_col *c, const char *what);
/* A list column's offsets against its child (after the tasks ran). */
zb_status check_list(reader *r, const ipc_field *fd, const ipc_col *c, const char *what);
/* The children of list column fd's schema c, down to its leaf, in one
 * new block (*block, zb_free'd by the caller once the schema is
 * released). */
zb_status list_schema(reader *r, const ipc_field *fd, struct ArrowSchema *c, void **block);
/* The children of list column c's array ca (its own buffers in cb[0, 3)),
 * down to its leaf, in one new block (*block, as list_schema's). */
zb_status list_array(reader *r, const ipc_field *fd, const ipc_col *c, struct ArrowArray *ca,
                     const void **cb, void **block);
/* List column k of batches[0, nb) (planned and checked: check_list) as
 * one column *out: each level's offsets rebased to int64 over the rows
 * its batch uses, validity bits, the leaf's values (strings: int64
 * offsets and their characters) copied into blocks owned by `own` (not
 * the file, so the batches' decompressed blocks go with the read); fd
 * then describes it (LargeList at every level, large strings).
 * out->levels: from zb_calloc, the caller's to free, on failure too. */
zb_status merge_list(reader *r, ipc_file *own, ipc_field *fd, const ipc_batch *batches,
                     int64_t nb, int64_t k, ipc_col *out);

#endif /* ZAMBEZI_IO_IPC_READ_INTERNAL_H */
