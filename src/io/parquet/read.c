/*
 * read.c -- the Parquet reader's entry points: map the file, decode the
 * footer (meta.c), work out which leaf columns to read and what engine
 * type each becomes, allocate every result column for all rows at once,
 * decode the (row group, column) chunks on the thread pool (page.c), each
 * into its own rows, and assemble the table.
 *
 * Chunks write bytes, never bits, so that two chunks of one column can be
 * decoded at once: validity and booleans are a byte per row while
 * decoding and are packed into bitmaps at the end (in parallel by column);
 * a string chunk fills its own chars buffer; a column's buffer is then
 * its first chunk's, grown by each later chunk in turn (which is freed at
 * once, so the characters are held twice a chunk at a time, not a column
 * at a time), and each chunk's offsets are shifted by the bytes before it.  Of several failing chunks, the one first in the file (row group,
 * then column) is reported, whatever the thread count.
 *
 * A list column (a LIST of values, or of LISTs to ZB_LIST_MAX_DEPTH levels:
 * classify) is decoded the same way, but per slot -- one per level entry,
 * as many as the chunks' value counts -- keeping each slot's repetition and
 * definition levels; assemble_list then turns the slots into each level's
 * list offsets and validity and a child of the slots that hold values.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/builder.h"
#include "io/parquet/parquet.h"
#include "io/text_values.h"
#include "zambezi/io.h"

typedef struct rcol {
  int64_t leaf;          /* index among the file's leaf columns */
  const pq_schema *se;
  char *name;            /* NUL-terminated copy */
  zb_type_id type;
  zb_time_unit unit;
  bool utc;
  pq_out_kind kind;
  int out_width;
  int32_t decimal_scale; /* >= 0: DECIMAL read as float64 */
  char *tz;              /* a UTC timestamp's zone, from the Arrow schema (or NULL) */
  bool categorical;      /* strings the Arrow schema calls a dictionary column */
  bool float16;
  int max_def;
  /* List columns (max_rep levels of lists): rows below are slots, one per
   * level entry.  def_rep[k] is the definition level of level k's repeated
   * field: a slot holds an element of a level-k list when its definition
   * level is >= def_rep[k], and that list is null when the level is
   * < def_rep[k] - 1 (def_rep[0] = 0: every row). */
  int max_rep;
  uint8_t def_rep[ZB_LIST_MAX_DEPTH + 1];
  int64_t nslots;        /* list: slots of the row groups read */
  int64_t *slot0;        /* list: first slot of each row group read (nsel + 1) */
  uint8_t *defs, *reps;  /* list: each slot's levels */
  uint8_t *values;       /* FIXED / BOOL */
  uint8_t *valid;        /* a byte per row, or NULL */
  int64_t *offsets;      /* STRING: rows + 1 */
  uint8_t *chars;
  int64_t nulls;
  zb_column *col;        /* the result */
} rcol;

typedef struct reader {
  const char *name;
  const uint8_t *file;
  int64_t data_end;      /* bytes before the footer */
  pq_meta meta;
  int64_t nleaves;
  int64_t *leaf_schema;  /* schema index of each leaf */
  int64_t *leaf_top;     /* schema index of each leaf's top-level field */
  int64_t ncols;
  rcol *cols;
  int64_t nrows;
  int64_t *rg_row0;      /* first row of each row group read (nsel + 1) */
  int64_t *rg_sel;       /* the row groups read, in file order */
  int64_t nsel;
  pq_job *jobs;          /* nsel * ncols, row group major */
  volatile int *cancel;
  int stop;              /* atomic: a chunk failed */
  pthread_mutex_t mu;
  int64_t err_task;      /* the failing task first in the file, or -1 */
  zb_status err_st;
  zb_error err;
  zb__worker_slots scratch; /* pq_scratch *, a decoding worker's, made on first use */
} reader;

/* ---- schema ------------------------------------------------------------ */

static zb_status walk_schema(reader *r, zb_error *err) {
  const pq_meta *m = &r->meta;
  if (m->schema[0].num_children < 0 || m->schema[0].num_children > m->num_schema - 1)
    return zb_error_set(err, ZB_EPARSE, "'%s': corrupt schema (root of %d children)", r->name,
                        m->schema[0].num_children);
  r->leaf_schema = (int64_t *)zb_malloc((size_t)m->num_schema * sizeof(int64_t));
  r->leaf_top = (int64_t *)zb_malloc((size_t)m->num_schema * sizeof(int64_t));
  int64_t *left = (int64_t *)zb_malloc((size_t)m->num_schema * sizeof(int64_t));
  if (r->leaf_schema == NULL || r->leaf_top == NULL || left == NULL) {
    zb_free(left);
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (Parquet schema)");
  }
  /* A stack of the children still to come at each depth. */
  int64_t depth = 0, top = -1, i = 1;
  left[0] = m->schema[0].num_children;
  while (depth >= 0 && i < m->num_schema) {
    if (left[depth] == 0) {
      depth--;
      continue;
    }
    left[depth]--;
    const pq_schema *s = &m->schema[i];
    if (depth == 0) top = i;
    if (s->num_children > 0) {
      if (s->num_children > m->num_schema - i - 1) {
        zb_free(left);
        return zb_error_set(err, ZB_EPARSE, "'%s': corrupt schema (a group of %d children)",
                            r->name, s->num_children);
      }
      left[++depth] = s->num_children;
    } else {
      r->leaf_schema[r->nleaves] = i;
      r->leaf_top[r->nleaves] = top;
      r->nleaves++;
    }
    i++;
  }
  zb_free(left);
  if (i != m->num_schema)
    return zb_error_set(err, ZB_EPARSE, "'%s': corrupt schema (%lld elements, %lld used)",
                        r->name, (long long)m->num_schema, (long long)i);
  return ZB_OK;
}

static const char *codec_name(int32_t c) {
  static const char *names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD",
                                "LZ4_RAW"};
  return c >= 0 && c < 8 ? names[c] : "unknown";
}

static const char *phys_name(int32_t t) {
  static const char *names[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
                                "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  return t >= 0 && t < 8 ? names[t] : "unknown";
}

/* The engine type of a flat leaf; ZB_ENOTSUP naming the column if none. */
static zb_status map_type(reader *r, rcol *c, zb_error *err) {
  const pq_schema *s = c->se;
  int lt = s->logical;
  c->kind = PQ_OUT_FIXED;
  c->decimal_scale = -1;
  if (lt == PQ_LT_DECIMAL) {
    /* DECIMAL as float64: its unscaled integer divided by 10^scale */
    if (s->scale < 0 || s->scale > 76 || (s->precision > 0 && s->scale > s->precision))
      return zb_error_set(err, ZB_EPARSE, "'%s': column '%s' is a DECIMAL of scale %d and "
                          "precision %d", r->name, c->name, s->scale, s->precision);
    if (s->type == PQ_INT32 || s->type == PQ_INT64 ||
        (s->type == PQ_FIXED_LEN_BYTE_ARRAY && s->type_length >= 1 && s->type_length <= 16)) {
      c->type = ZB_FLOAT64;
      c->out_width = 8;
      c->decimal_scale = s->scale;
      return ZB_OK;
    }
    return zb_error_set(err, ZB_ENOTSUP,
                        "'%s': column '%s' is a DECIMAL stored as %s%s, which zambezi does not "
                        "read yet (INT32, INT64 and FIXED_LEN_BYTE_ARRAY of up to 16 bytes are "
                        "read as float64)",
                        r->name, c->name, phys_name(s->type),
                        s->type == PQ_FIXED_LEN_BYTE_ARRAY ? " of more than 16 bytes" : "");
  }
  if (lt == PQ_LT_FLOAT16 && s->type == PQ_FIXED_LEN_BYTE_ARRAY && s->type_length == 2) {
    c->type = ZB_FLOAT32;
    c->out_width = 4;
    c->float16 = true;
    return ZB_OK;
  }
  switch (s->type) {
    case PQ_BOOLEAN:
      if (lt != PQ_LT_NONE) break;
      c->type = ZB_BOOL;
      c->kind = PQ_OUT_BOOL;
      return ZB_OK;
    case PQ_INT32:
      if (lt == PQ_LT_NONE || (lt == PQ_LT_INT && s->int_bits == 32)) {
        c->type = lt == PQ_LT_INT && !s->int_signed ? ZB_UINT32 : ZB_INT32;
        c->out_width = 4;
        return ZB_OK;
      }
      if (lt == PQ_LT_INT && (s->int_bits == 8 || s->int_bits == 16)) {
        c->out_width = s->int_bits / 8;
        c->type = s->int_bits == 8 ? (s->int_signed ? ZB_INT8 : ZB_UINT8)
                                   : (s->int_signed ? ZB_INT16 : ZB_UINT16);
        return ZB_OK;
      }
      if (lt == PQ_LT_DATE) {
        c->type = ZB_DATE32;
        c->out_width = 4;
        return ZB_OK;
      }
      break;
    case PQ_INT64:
      c->out_width = 8;
      if (lt == PQ_LT_NONE || (lt == PQ_LT_INT && s->int_bits == 64)) {
        c->type = lt == PQ_LT_INT && !s->int_signed ? ZB_UINT64 : ZB_INT64;
        return ZB_OK;
      }
      if (lt == PQ_LT_TIMESTAMP) {
        c->type = ZB_TIMESTAMP;
        c->unit = (zb_time_unit)s->ts_unit;
        c->utc = s->ts_utc;
        return ZB_OK;
      }
      break;
    case PQ_INT96: /* legacy timestamps: nanoseconds, no time zone (as pyarrow) */
      if (lt != PQ_LT_NONE) break;
      c->type = ZB_TIMESTAMP;
      c->unit = ZB_NANO;
      c->out_width = 8;
      return ZB_OK;
    case PQ_FLOAT:
      if (lt != PQ_LT_NONE) break;
      c->type = ZB_FLOAT32;
      c->out_width = 4;
      return ZB_OK;
    case PQ_DOUBLE:
      if (lt != PQ_LT_NONE) break;
      c->type = ZB_FLOAT64;
      c->out_width = 8;
      return ZB_OK;
    case PQ_BYTE_ARRAY:
      if (lt != PQ_LT_STRING) break;
      c->type = ZB_STRING;
      c->kind = PQ_OUT_STRING;
      return ZB_OK;
    default:
      break;
  }
  return zb_error_set(err, ZB_ENOTSUP,
                      "'%s': column '%s' is of Parquet type %s%s, which zambezi does not read "
                      "yet",
                      r->name, c->name, phys_name(s->type),
                      lt == PQ_LT_OTHER ? " with a logical type"
                      : s->type == PQ_BYTE_ARRAY ? " (binary, not UTF-8 text)" : "");
}

static char *copy_name(const pq_str *s) {
  char *p = (char *)zb_malloc((size_t)s->n + 1);
  if (p == NULL) return NULL;
  if (s->n > 0) memcpy(p, s->p, (size_t)s->n);
  p[s->n] = '\0';
  return p;
}

static bool name_is(const pq_str *s, const char *name) {
  return (int64_t)strlen(name) == s->n && (s->n == 0 || memcmp(s->p, name, (size_t)s->n) == 0);
}

/* Why a nested field is not read: an error naming the column. */
static zb_status nested_error(reader *r, const rcol *c, const char *what, zb_error *err) {
  return zb_error_set(err, ZB_ENOTSUP,
                      "'%s': column '%s' is %s, which zambezi does not read yet (lists of "
                      "values, and lists of such lists, are read into the list dtype; "
                      "structs, maps and lists of structs are not)",
                      r->name, c->name, what);
}

static bool is_map(const pq_schema *s) {
  return s->lt_map || s->converted == 1 || s->converted == 2; /* MAP, MAP_KEY_VALUE */
}

/* How the top-level field `top` (nleaf leaves, the first `leaf`) is read:
 * flat (a leaf), or a list of values -- or of lists, to ZB_LIST_MAX_DEPTH
 * levels -- in one of the layouts of the Parquet spec's LogicalTypes.md:
 *   <opt|req> group T (LIST) { repeated group R { <opt|req> E } }   3-level
 *   <opt|req> group T (LIST) { repeated E }                         2-level
 *   repeated E (no annotation, at the top)           a required list of E
 * where E of a 3-level list may itself be such a LIST group.  By its
 * backward-compatibility rules a repeated group R of several fields, or of
 * one named "array" or "<T>_tuple", is itself the element (a struct).
 * Sets c->se (the leaf), max_def, max_rep and def_rep[1..max_rep];
 * ZB_ENOTSUP naming the column for what is not read. */
static zb_status classify(reader *r, rcol *c, int64_t top, int64_t nleaf, int64_t leaf,
                          zb_error *err) {
  const pq_meta *m = &r->meta;
  int64_t at = top;
  int d = 0; /* the definition level of the field at `at`'s parent */
  c->max_rep = 0;
  for (;;) {
    const pq_schema *t = &m->schema[at];
    if (is_map(t)) return nested_error(r, c, c->max_rep > 0 ? "a list of maps" : "a map", err);
    if (t->num_children == 0) {
      c->se = t;
      if (t->repetition != 2) {
        c->max_def = t->repetition == 1 ? 1 : 0;
        return ZB_OK;
      }
      c->max_rep = 1; /* a bare repeated value: a list that is never null */
      c->def_rep[1] = 1;
      c->max_def = 1;
      return ZB_OK;
    }
    bool list = t->lt_list || t->converted == 3;
    if (!list)
      return nested_error(r, c, c->max_rep > 0 ? "a list of structs"
                                : t->repetition == 2 ? "a list of structs" : "a struct", err);
    if (t->repetition == 2 || t->num_children != 1 || at + 1 >= m->num_schema)
      return nested_error(r, c, "a list in a layout outside the Parquet spec", err);
    const pq_schema *rep = &m->schema[at + 1];
    if (rep->repetition != 2)
      return nested_error(r, c, "a list in a layout outside the Parquet spec", err);
    if (c->max_rep == ZB_LIST_MAX_DEPTH)
      return nested_error(r, c, "a list nested more than 32 levels deep", err);
    d += (t->repetition == 1 ? 1 : 0) + 1;
    c->def_rep[++c->max_rep] = (uint8_t)d;
    if (rep->num_children == 0) { /* 2-level: the repeated field is the element */
      if (nleaf != 1 || r->leaf_schema[leaf] != at + 1)
        return nested_error(r, c, "a corrupt list", err);
      c->se = rep;
      c->max_def = d;
      return ZB_OK;
    }
    if (rep->num_children > 1 || name_is(&rep->name, "array") ||
        (rep->name.n == t->name.n + 6 && t->name.n >= 0 &&
         (t->name.n == 0 || memcmp(rep->name.p, t->name.p, (size_t)t->name.n) == 0) &&
         memcmp(rep->name.p + t->name.n, "_tuple", 6) == 0))
      return nested_error(r, c, "a list of structs", err);
    if (at + 2 >= m->num_schema) return nested_error(r, c, "a corrupt list", err);
    const pq_schema *e = &m->schema[at + 2];
    if (e->repetition == 2) return nested_error(r, c, "a list of lists in a legacy layout", err);
    if (e->num_children > 0) { /* a list of lists (or of structs or maps: refused above) */
      at += 2; /* E is the next level's T */
      continue;
    }
    if (nleaf != 1 || r->leaf_schema[leaf] != at + 2)
      return nested_error(r, c, "a corrupt list", err);
    c->se = e;
    c->max_def = d + (e->repetition == 1 ? 1 : 0);
    return ZB_OK;
  }
}

/* Fill r->cols from the selection (or every top-level field). */
static zb_status select_columns(reader *r, const zb_parquet_options *o, zb_error *err) {
  const pq_meta *m = &r->meta;
  int64_t want = o->columns != NULL ? o->num_columns : m->schema[0].num_children;
  r->cols = (rcol *)zb_calloc((size_t)(want > 0 ? want : 1), sizeof(rcol));
  if (r->cols == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (columns)");
  r->ncols = want;
  for (int64_t k = 0; k < want; k++) {
    int64_t top = -1, leaf = -1, nleaf = 0;
    if (o->columns != NULL) {
      const char *name = o->columns[k];
      if (name == NULL) return zb_error_set(err, ZB_EINVAL, "Parquet: column name %lld is NULL", (long long)k);
      for (int64_t i = 0; i < r->nleaves && top < 0; i++)
        if (name_is(&m->schema[r->leaf_top[i]].name, name)) top = r->leaf_top[i];
      if (top < 0)
        return zb_error_set(err, ZB_EKEY, "'%s' has no column '%s'", r->name, name);
    } else {
      /* the k-th top-level field: the k-th distinct leaf_top */
      int64_t seen = -1, last = -1;
      for (int64_t i = 0; i < r->nleaves; i++) {
        if (r->leaf_top[i] != last) {
          last = r->leaf_top[i];
          if (++seen == k) {
            top = last;
            break;
          }
        }
      }
      if (top < 0) /* a group without leaves */
        return zb_error_set(err, ZB_ENOTSUP, "'%s': a column without values (an empty group)", r->name);
    }
    for (int64_t i = 0; i < r->nleaves; i++)
      if (r->leaf_top[i] == top) {
        if (leaf < 0) leaf = i;
        nleaf++;
      }
    rcol *c = &r->cols[k];
    c->name = copy_name(&m->schema[top].name);
    if (c->name == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (column names)");
    if (!zb__text_utf8_valid((const unsigned char *)c->name, m->schema[top].name.n) ||
        (int64_t)strlen(c->name) != m->schema[top].name.n)
      return zb_error_set(err, ZB_EPARSE, "'%s': column %lld's name is not valid UTF-8 text",
                          r->name, (long long)k);
    c->leaf = leaf;
    ZB_RETURN_NOT_OK(classify(r, c, top, nleaf, leaf, err));
    ZB_RETURN_NOT_OK(map_type(r, c, err));
  }
  return ZB_OK;
}

/* What the writer's Arrow schema (arrow_hints.c) says of the flat columns
 * selected, that their Parquet types cannot: an INT64 that is a duration,
 * a UTC timestamp's time zone, strings that are a dictionary column. */
static zb_status arrow_hints(reader *r, zb_error *err) {
  zb_table *types = NULL;
  ZB_RETURN_NOT_OK(zb__pq_arrow_types(&r->meta.arrow_schema, &types, err));
  if (types == NULL) return ZB_OK;
  zb_status st = ZB_OK;
  for (int64_t k = 0; k < r->ncols && st == ZB_OK; k++) {
    rcol *c = &r->cols[k];
    int64_t j = c->max_rep == 0 ? zb_table_find(types, c->name) : -1;
    if (j < 0) continue;
    const zb_column *h = types->columns[j];
    if (h->type == ZB_DURATION && c->type == ZB_INT64 && c->se->logical == PQ_LT_NONE) {
      c->type = ZB_DURATION;
      c->unit = h->unit;
    } else if (h->type == ZB_TIMESTAMP && h->timezone != NULL && c->type == ZB_TIMESTAMP &&
               c->utc) {
      if ((c->tz = zb__strdup(h->timezone)) == NULL)
        st = zb_error_set(err, ZB_ENOMEM, "out of host memory (time zone)");
    } else if (h->type == ZB_CATEGORICAL && h->dictionary != NULL &&
               h->dictionary->type == ZB_STRING && c->type == ZB_STRING) {
      c->categorical = true;
    }
  }
  zb_table_release(types);
  return st;
}

/* ---- decoding ---------------------------------------------------------- */

static void chunk_task(void *ctx, int64_t t, int worker) {
  reader *r = (reader *)ctx;
  if (__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) return;
  pq_job *j = &r->jobs[t];
  zb_error e;
  e.message[0] = '\0';
  void **slot = zb__worker_slot(&r->scratch, worker);
  if (slot != NULL && *slot == NULL) *slot = zb_calloc(1, sizeof(pq_scratch));
  j->scratch = slot != NULL ? (pq_scratch *)*slot : NULL; /* NULL: the decode's own */
  zb_status st = zb__pq_decode_chunk(j, &e);
  j->scratch = NULL;
  if (st == ZB_OK) return;
  pthread_mutex_lock(&r->mu);
  if (r->err_task < 0 || t < r->err_task) {
    r->err_task = t;
    r->err_st = st;
    const rcol *c = &r->cols[t % r->ncols];
    if (st == ZB_ENOMEM || st == ZB_ECANCEL)
      zb_error_set(&r->err, st, "%s", e.message);
    else
      zb_error_set(&r->err, st, "'%s': column '%s', row group %lld: %s", r->name, c->name,
                   (long long)r->rg_sel[t / r->ncols], e.message);
  }
  pthread_mutex_unlock(&r->mu);
  __atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
}

/* Strings: one chars buffer per column.  With one row group it is that
 * chunk's own; otherwise a block with room for every chunk's characters
 * (zb__malloc_room: recycled pages where the block cache has them, where
 * growing the first chunk's block added fresh pages that the kernel
 * clears on first touch) receives each chunk in turn, which is freed at
 * once: counted, the characters are held twice only a chunk at a time.
 * A deferred chunk (dictionary indices, pq_deferred) has no characters
 * yet: its part of the block is counted here and written by gather_task.
 * One task per column; st[k] receives ZB_ENOMEM when memory ran out. */
typedef struct join_ctx {
  reader *r;
  zb_status *st;
} join_ctx;

static void join_task(void *ctx, int64_t k, int worker) {
  (void)worker;
  join_ctx *jc = (join_ctx *)ctx;
  reader *r = jc->r;
  rcol *c = &r->cols[k];
  if (c->kind != PQ_OUT_STRING) return;
  int64_t total = 0;
  for (int64_t g = 0; g < r->nsel; g++) total += r->jobs[g * r->ncols + k].chars_len;
  uint8_t *buf = NULL;
  if (r->nsel == 1 && r->jobs[k].chars != NULL) {
    buf = r->jobs[k].chars;
    r->jobs[k].chars = NULL;
    zb__shrink(buf, (size_t)(total > 0 ? total : 1));
  } else {
    buf = (uint8_t *)zb__malloc_room(1, (size_t)(total > 0 ? total : 1));
    int64_t have = 0;
    for (int64_t g = 0; g < r->nsel && buf != NULL; g++) {
      pq_job *j = &r->jobs[g * r->ncols + k];
      if (j->chars_len > 0) {
        if (zb__grow(buf, (size_t)(have + j->chars_len)) == NULL) { /* in its room: counts */
          zb_free(buf);
          buf = NULL;
          break;
        }
        if (j->chars != NULL) /* else deferred: gather_task writes them there */
          memcpy(buf + have, j->chars, (size_t)j->chars_len);
        have += j->chars_len;
      }
      zb_free(j->chars);
      j->chars = NULL;
    }
  }
  if (buf == NULL) jc->st[k] = ZB_ENOMEM;
  c->chars = buf;
}

/* Strings: a deferred chunk's characters written into the column's buffer
 * (zb__pq_gather_strings), each other chunk's offsets shifted by the
 * characters before it. */
static void gather_task(void *ctx, int64_t t, int worker) {
  (void)worker;
  reader *r = (reader *)ctx;
  pq_job *j = &r->jobs[t];
  rcol *c = &r->cols[t % r->ncols];
  if (c->kind != PQ_OUT_STRING) return;
  if (j->deferred != NULL) {
    zb__pq_gather_strings(j, c->chars);
    return;
  }
  if (j->chars_base == 0) return;
  int64_t base = j->chars_base;
  for (int64_t i = 0; i < j->rows; i++) j->offsets[i] += base;
}

static zb_status make_bitmap(const uint8_t *bytes, int64_t n, zb_buffer **out, zb_error *err) {
  int64_t nb = (n + 7) / 8;
  uint8_t *bits = (uint8_t *)zb_malloc((size_t)(nb > 0 ? nb : 1));
  if (bits == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (bitmap)");
  int64_t full = n / 8;
  for (int64_t i = 0; i < full; i++) {
    const uint8_t *b = bytes + 8 * i;
    bits[i] = (uint8_t)((b[0] & 1) | (b[1] & 1) << 1 | (b[2] & 1) << 2 | (b[3] & 1) << 3 |
                        (b[4] & 1) << 4 | (b[5] & 1) << 5 | (b[6] & 1) << 6 | (b[7] & 1) << 7);
  }
  if (n % 8) {
    uint8_t v = 0;
    for (int64_t i = full * 8; i < n; i++) v |= (uint8_t)((bytes[i] & 1) << (i - full * 8));
    bits[full] = v;
  }
  zb_status st = zb_buffer_wrap(ZB_CPU, bits, nb, zb__release_zb_malloc, NULL, out, err);
  if (st != ZB_OK) zb_free(bits);
  return st;
}

static zb_status wrap(void **p, int64_t size, zb_buffer **out, zb_error *err) {
  zb_status st = zb_buffer_wrap(ZB_CPU, *p, size, zb__release_zb_malloc, NULL, out, err);
  if (st == ZB_OK) *p = NULL;
  return st;
}

/* Build column c's result from its decoded buffers. */
static zb_status finish_column(reader *r, rcol *c, zb_error *err) {
  int64_t n = c->max_rep > 0 ? c->nslots : r->nrows; /* a list: its slots, for now */
  zb_buffer *validity = NULL, *data = NULL, *chars = NULL;
  zb_status st = ZB_OK;
  if (c->nulls > 0) st = make_bitmap(c->valid, n, &validity, err);
  zb_free(c->valid); /* a byte per row: packed now (or no nulls), not needed */
  c->valid = NULL;
  if (st == ZB_OK) {
    if (c->kind == PQ_OUT_BOOL) {
      st = make_bitmap(c->values, n, &data, err);
      zb_free(c->values);
      c->values = NULL;
    } else if (c->kind == PQ_OUT_FIXED) {
      st = wrap((void **)&c->values, n * c->out_width, &data, err);
    } else {
      int64_t total = c->offsets[n];
      st = wrap((void **)&c->offsets, (n + 1) * (int64_t)sizeof(int64_t), &data, err);
      if (st == ZB_OK) st = wrap((void **)&c->chars, total, &chars, err);
    }
  }
  if (st == ZB_OK)
    st = zb_column_make(c->type, n, 0, validity, data, chars, NULL, c->nulls, &c->col, err);
  if (st == ZB_OK && c->type == ZB_TIMESTAMP)
    st = zb_column_set_time(c->col, c->unit, c->tz ? c->tz : c->utc ? "UTC" : NULL, err);
  if (st == ZB_OK && c->type == ZB_DURATION) st = zb_column_set_time(c->col, c->unit, NULL, err);
  if (st == ZB_OK && c->categorical) {
    zb_column *cat = NULL;
    st = zb_column_cast(c->col, ZB_CATEGORICAL, 0, &cat, err);
    zb_column_release(c->col);
    c->col = cat;
  }
  zb_buffer_release(validity);
  zb_buffer_release(data);
  zb_buffer_release(chars);
  return st;
}

/* A list column from its slots: c->col holds every slot's value (null
 * where none); the levels give each level's lists.  A slot of repetition
 * level rl < k whose definition level reaches def_rep[k - 1] (an element
 * of the level above: a row when k = 1) starts a list of level k, null
 * when the definition level is below def_rep[k] - 1, empty when it is
 * def_rep[k] - 1; a slot of repetition level <= k whose definition level
 * reaches def_rep[k] is an element of it.  The elements of level k are the
 * lists of level k + 1, and those of the deepest level the values the
 * child keeps.  Levels out of range, a row group whose lists do not add up
 * to its rows, or a list continued where none was started or that holds
 * no element are ZB_EPARSE naming the column and row group. */
typedef struct list_level {
  int64_t n, elems, nulls; /* lists, their elements, null lists */
  int64_t *off;            /* n + 1 */
  uint8_t *valid;          /* a byte per list */
} list_level;

/* One pass over the slots: checks the levels and counts each level's lists
 * (fill false), or fills their offsets and validity (fill true). */
static zb_status list_pass(reader *r, rcol *c, list_level *lv, uint8_t *keep, bool fill,
                           zb_error *err) {
  const int R = c->max_rep;
  const uint8_t *dr = c->def_rep;
  for (int k = 1; k <= R; k++) lv[k].n = lv[k].elems = lv[k].nulls = 0;
  for (int64_t g = 0; g < r->nsel; g++) {
    const int64_t rows = r->rg_row0[g + 1] - r->rg_row0[g], row0 = lv[1].n;
    const char *bad = NULL;
    int64_t i;
    int prev_d = 0;
    for (i = c->slot0[g]; i < c->slot0[g + 1]; i++) {
      const int rl = c->reps[i], dl = c->defs[i];
      if (!fill && ((i - c->slot0[g]) & 0xffff) == 0xffff && r->cancel != NULL && *r->cancel)
        return zb_error_set(err, ZB_ECANCEL, "Parquet read cancelled");
      if (rl > R || dl > c->max_def) {
        bad = rl > R ? "a repetition level above the schema's maximum"
                     : "a definition level above the schema's maximum";
        break;
      }
      if (rl == 0 && lv[1].n - row0 == rows) {
        bad = "more lists than the row group has rows";
        break;
      }
      if (rl > 0 && (i == c->slot0[g] || dl < dr[rl] || prev_d < dr[rl])) {
        bad = i == c->slot0[g] ? "a list continued across row groups"
                               : "a list continued by no element";
        break;
      }
      prev_d = dl;
      for (int k = rl > 0 ? rl : 1; k <= R; k++) {
        if (k > rl && dl >= dr[k - 1]) { /* a new list of level k */
          list_level *v = &lv[k];
          if (fill) {
            v->off[v->n] = v->elems;
            v->valid[v->n] = dl >= dr[k] - 1;
          }
          v->nulls += dl < dr[k] - 1;
          v->n++;
        }
        if (dl < dr[k]) break; /* no element here, nor below */
        lv[k].elems++;
      }
      if (fill) keep[i] = dl >= dr[R];
    }
    if (bad == NULL && lv[1].n - row0 != rows) bad = "fewer lists than the row group has rows";
    if (bad != NULL)
      return zb_error_set(err, ZB_EPARSE,
                          "'%s': column '%s', row group %lld: corrupt repetition or definition "
                          "levels (%s, at value %lld)",
                          r->name, c->name, (long long)r->rg_sel[g], bad,
                          (long long)(i - c->slot0[g]));
  }
  return ZB_OK;
}

static zb_status assemble_list(reader *r, rcol *c, zb_error *err) {
  const int R = c->max_rep;
  const int64_t ns = c->nslots;
  list_level lv[ZB_LIST_MAX_DEPTH + 1];
  memset(lv, 0, sizeof lv);
  uint8_t *keep = NULL;
  zb_buffer *offsets = NULL, *validity = NULL, *mbits = NULL;
  zb_column *mask = NULL, *child = NULL, *list = NULL;
  zb_status st = list_pass(r, c, lv, NULL, false, err);
  if (st != ZB_OK) goto done;
  keep = (uint8_t *)zb_malloc((size_t)(ns > 0 ? ns : 1));
  bool ok = keep != NULL;
  for (int k = 1; k <= R && ok; k++) {
    lv[k].off = (int64_t *)zb_malloc((size_t)(lv[k].n + 1) * sizeof(int64_t));
    lv[k].valid = (uint8_t *)zb_malloc((size_t)(lv[k].n > 0 ? lv[k].n : 1));
    ok = lv[k].off != NULL && lv[k].valid != NULL;
  }
  if (!ok) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (column '%s': its lists)", c->name);
    goto done;
  }
  if ((st = list_pass(r, c, lv, keep, true, err)) != ZB_OK) goto done;
  if (lv[R].elems == ns) {
    child = c->col;
    c->col = NULL;
  } else {
    st = make_bitmap(keep, ns, &mbits, err);
    if (st == ZB_OK) st = zb_column_make(ZB_BOOL, ns, 0, NULL, mbits, NULL, NULL, 0, &mask, err);
    if (st == ZB_OK) st = zb_column_filter(c->col, mask, &child, err);
    if (st != ZB_OK) goto done;
    zb_column_release(c->col);
    c->col = NULL;
  }
  zb_free(keep);
  keep = NULL;
  for (int k = R; k >= 1; k--) { /* the deepest lists first: each is the child above */
    list_level *v = &lv[k];
    v->off[v->n] = v->elems;
    if (v->nulls > 0 && (st = make_bitmap(v->valid, v->n, &validity, err)) != ZB_OK) goto done;
    if ((st = wrap((void **)&v->off, (v->n + 1) * (int64_t)sizeof(int64_t), &offsets, err)) !=
        ZB_OK)
      goto done;
    st = zb_column_make_list(v->n, 0, validity, offsets, child, v->nulls, &list, err);
    zb_buffer_release(offsets);
    zb_buffer_release(validity);
    offsets = validity = NULL;
    if (st != ZB_OK) goto done;
    zb_column_release(child);
    child = list;
    list = NULL;
  }
  c->col = child;
  child = NULL;
done:
  for (int k = 1; k <= R; k++) {
    zb_free(lv[k].off);
    zb_free(lv[k].valid);
  }
  zb_free(keep);
  zb_buffer_release(offsets);
  zb_buffer_release(validity);
  zb_buffer_release(mbits);
  zb_column_release(mask);
  zb_column_release(child);
  zb_column_release(list);
  return st;
}

/* The decoding workers' buffers, once no worker runs. */
static void free_scratch(reader *r) {
  for (int w = 0; w < r->scratch.n; w++) {
    pq_scratch *sc = (pq_scratch *)zb__worker_at(&r->scratch, w);
    if (sc != NULL) zb__pq_scratch_free(sc);
    zb_free(sc);
  }
  zb__worker_slots_reset(&r->scratch);
}

static void reader_free(reader *r) {
  free_scratch(r);
  if (r->jobs != NULL) {
    int64_t nj = r->nsel * r->ncols;
    for (int64_t t = 0; t < nj; t++) {
      zb_free(r->jobs[t].chars);
      zb__pq_deferred_free(&r->jobs[t]);
    }
  }
  zb_free(r->jobs);
  if (r->cols != NULL)
    for (int64_t k = 0; k < r->ncols; k++) {
      rcol *c = &r->cols[k];
      zb_free(c->name);
      zb_free(c->tz);
      zb_free(c->values);
      zb_free(c->valid);
      zb_free(c->offsets);
      zb_free(c->chars);
      zb_free(c->slot0);
      zb_free(c->defs);
      zb_free(c->reps);
      zb_column_release(c->col);
    }
  zb_free(r->cols);
  zb_free(r->rg_row0);
  zb_free(r->rg_sel);
  zb_free(r->leaf_schema);
  zb_free(r->leaf_top);
  zb__pq_meta_free(&r->meta);
  pthread_mutex_destroy(&r->mu);
}

/* ---- row-group pruning ------------------------------------------------- */

/* A statistic or filter value: an integer (signed or not), a float or a
 * string. */
typedef struct pval {
  int kind; /* 0 int64, 1 uint64, 2 double, 3 string */
  int64_t i;
  uint64_t u;
  double d;
  const char *s;
  int64_t n;
} pval;

/* Compare a with b: -1, 0, 1, or 2 when they cannot be compared exactly
 * (a number with a string, an integer past 2^53 with a float, a NaN). */
static int pval_cmp(const pval *a, const pval *b) {
  if ((a->kind == 3) != (b->kind == 3)) return 2;
  if (a->kind == 3) {
    int64_t n = a->n < b->n ? a->n : b->n;
    int c = n > 0 ? memcmp(a->s, b->s, (size_t)n) : 0;
    if (c != 0) return c < 0 ? -1 : 1;
    return a->n < b->n ? -1 : a->n > b->n ? 1 : 0;
  }
  if (a->kind != 2 && b->kind != 2) {
    if (a->kind == 0 && b->kind == 0) return a->i < b->i ? -1 : a->i > b->i;
    if (a->kind == 1 && b->kind == 1) return a->u < b->u ? -1 : a->u > b->u;
    if (a->kind == 0) return a->i < 0 ? -1 : (uint64_t)a->i < b->u ? -1 : (uint64_t)a->i > b->u;
    return b->i < 0 ? 1 : a->u < (uint64_t)b->i ? -1 : a->u > (uint64_t)b->i;
  }
  double x, y;
  const int64_t big = (int64_t)1 << 53;
  if (a->kind == 0 && (a->i > big || a->i < -big)) return 2;
  if (b->kind == 0 && (b->i > big || b->i < -big)) return 2;
  if ((a->kind == 1 && a->u > (uint64_t)big) || (b->kind == 1 && b->u > (uint64_t)big)) return 2;
  x = a->kind == 0 ? (double)a->i : a->kind == 1 ? (double)a->u : a->d;
  y = b->kind == 0 ? (double)b->i : b->kind == 1 ? (double)b->u : b->d;
  if (x != x || y != y) return 2;
  return x < y ? -1 : x > y;
}

/* A chunk's min or max as a pval; false when the column's type is not
 * pruned or the statistic is malformed. */
static bool stat_value(const pq_schema *se, const pq_str *st, pval *v) {
  memset(v, 0, sizeof *v);
  if (st->p == NULL) return false;
  int lt = se->logical;
  bool int_ok = lt == PQ_LT_NONE || lt == PQ_LT_INT;
  bool uns = lt == PQ_LT_INT && !se->int_signed;
  switch (se->type) {
    case PQ_BOOLEAN:
      if (lt != PQ_LT_NONE || st->n != 1) return false;
      v->i = (uint8_t)st->p[0] != 0;
      return true;
    case PQ_INT32: {
      if (!int_ok || st->n != 4) return false;
      int32_t x;
      memcpy(&x, st->p, 4);
      if (uns) {
        v->kind = 1;
        v->u = (uint32_t)x;
      } else {
        v->i = x;
      }
      return true;
    }
    case PQ_INT64: {
      if (!int_ok || st->n != 8) return false;
      int64_t x;
      memcpy(&x, st->p, 8);
      if (uns) {
        v->kind = 1;
        v->u = (uint64_t)x;
      } else {
        v->i = x;
      }
      return true;
    }
    case PQ_FLOAT: {
      if (lt != PQ_LT_NONE || st->n != 4) return false;
      float x;
      memcpy(&x, st->p, 4);
      v->kind = 2;
      v->d = x;
      return x == x;
    }
    case PQ_DOUBLE:
      if (lt != PQ_LT_NONE || st->n != 8) return false;
      v->kind = 2;
      memcpy(&v->d, st->p, 8);
      return v->d == v->d;
    case PQ_BYTE_ARRAY:
      if (lt != PQ_LT_STRING) return false;
      v->kind = 3;
      v->s = st->p;
      v->n = st->n;
      return true;
    default:
      return false;
  }
}

static pval term_value(const zb_parquet_filter_term *t, int64_t k) {
  pval v;
  memset(&v, 0, sizeof v);
  if (t->kind == ZB_PQ_VALUE_INT) {
    v.i = t->ints[k];
  } else if (t->kind == ZB_PQ_VALUE_FLOAT) {
    v.kind = 2;
    v.d = t->floats[k];
  } else {
    v.kind = 3;
    v.s = t->strs[k];
    v.n = t->str_lens[k];
  }
  return v;
}

/* Whether row group g's statistics prove that no row satisfies term t. */
static bool term_excludes(const reader *r, const pq_row_group *rg, const zb_parquet_filter_term *t) {
  if (t->column == NULL || t->num_values < 0 || (t->num_values > 0 &&
      (t->kind == ZB_PQ_VALUE_INT ? t->ints == NULL
       : t->kind == ZB_PQ_VALUE_FLOAT ? t->floats == NULL
       : t->strs == NULL || t->str_lens == NULL)))
    return false;
  const pq_meta *m = &r->meta;
  int64_t leaf = -1;
  for (int64_t i = 0; i < r->nleaves && leaf < 0; i++)
    if (r->leaf_schema[i] == r->leaf_top[i] && name_is(&m->schema[r->leaf_top[i]].name, t->column))
      leaf = i;
  if (leaf < 0 || leaf >= rg->num_columns) return false;
  const pq_schema *se = &m->schema[r->leaf_schema[leaf]];
  if (se->repetition == 2) return false;
  const pq_chunk *ch = &rg->columns[leaf];
  if (!ch->has_meta) return false;
  bool no_nulls = ch->null_count == 0 || (ch->null_count < 0 && se->repetition == 0);
  if (t->op == ZB_PQ_NOT_IN) {
    /* nulls satisfy it: only a null-free group of one value in the list fails it */
    pval lo, hi;
    if (!no_nulls || !stat_value(se, &ch->stat_min, &lo) || !stat_value(se, &ch->stat_max, &hi) ||
        lo.kind == 2 || pval_cmp(&lo, &hi) != 0)
      return false;
    for (int64_t k = 0; k < t->num_values; k++) {
      pval v = term_value(t, k);
      if (pval_cmp(&lo, &v) == 0) return true;
    }
    return false;
  }
  if (ch->null_count >= 0 && ch->null_count == rg->num_rows) return true; /* only nulls */
  pval lo, hi;
  if (!stat_value(se, &ch->stat_min, &lo) || !stat_value(se, &ch->stat_max, &hi)) return false;
  if (t->op == ZB_PQ_IN) {
    for (int64_t k = 0; k < t->num_values; k++) {
      pval v = term_value(t, k);
      int a = pval_cmp(&v, &lo), b = pval_cmp(&v, &hi);
      if (a == 2 || b == 2) return false;
      if (a >= 0 && b <= 0) return false; /* within [min, max]: may be there */
    }
    return true;
  }
  if (t->num_values != 1) return false;
  pval v = term_value(t, 0);
  int a = pval_cmp(&lo, &v), b = pval_cmp(&hi, &v); /* min vs v, max vs v */
  if (a == 2 || b == 2) return false;
  switch (t->op) {
    case ZB_PQ_EQ: return a > 0 || b < 0;
    case ZB_PQ_NE: return lo.kind != 2 && a == 0 && b == 0; /* floats: NaN != v holds */
    case ZB_PQ_LT: return a >= 0;
    case ZB_PQ_LE: return a > 0;
    case ZB_PQ_GT: return b <= 0;
    case ZB_PQ_GE: return b < 0;
    default: return false;
  }
}

/* Whether row group g may hold a row that passes the filter. */
static bool keep_row_group(const reader *r, const zb_parquet_options *o, int64_t g) {
  if (o->filter == NULL || o->num_filter_terms <= 0 || o->num_filter_groups <= 0) return true;
  const pq_row_group *rg = &r->meta.row_groups[g];
  for (int64_t k = 0; k < o->num_filter_groups; k++) {
    bool excluded = false;
    for (int64_t i = 0; i < o->num_filter_terms && !excluded; i++)
      if (o->filter[i].group == k) excluded = term_excludes(r, rg, &o->filter[i]);
    if (!excluded) return true; /* this conjunction may hold */
  }
  return false;
}

static zb_status check_chunks(reader *r, const zb_parquet_options *opts, zb_error *err) {
  const pq_meta *m = &r->meta;
  int64_t total = 0;
  r->rg_row0 = (int64_t *)zb_malloc((size_t)(m->num_row_groups + 1) * sizeof(int64_t));
  r->rg_sel = (int64_t *)zb_malloc((size_t)(m->num_row_groups + 1) * sizeof(int64_t));
  if (r->rg_row0 == NULL || r->rg_sel == NULL)
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (row groups)");
  int64_t kept = 0;
  for (int64_t g = 0; g < m->num_row_groups; g++) {
    const pq_row_group *rg = &m->row_groups[g];
    if (rg->num_rows < 0 || rg->num_rows > INT64_MAX / 2 - total)
      return zb_error_set(err, ZB_EPARSE, "'%s': row group %lld has a corrupt row count (%lld)",
                          r->name, (long long)g, (long long)rg->num_rows);
    if (rg->num_columns != r->nleaves)
      return zb_error_set(err, ZB_EPARSE,
                          "'%s': row group %lld has %lld columns where the schema has %lld",
                          r->name, (long long)g, (long long)rg->num_columns,
                          (long long)r->nleaves);
    total += rg->num_rows;
    for (int64_t k = 0; k < r->ncols; k++) {
      const rcol *c = &r->cols[k];
      const pq_chunk *ch = &rg->columns[c->leaf];
      if (!ch->has_meta || ch->external)
        return zb_error_set(err, ZB_ENOTSUP,
                            "'%s': column '%s', row group %lld: the data is %s", r->name,
                            c->name, (long long)g,
                            ch->external ? "in another file" : "not described (no metadata)");
      if (ch->type != c->se->type)
        return zb_error_set(err, ZB_EPARSE,
                            "'%s': column '%s', row group %lld: the chunk's type (%d) is not "
                            "the schema's (%d)",
                            r->name, c->name, (long long)g, ch->type, c->se->type);
      if (ch->codec != PQ_UNCOMPRESSED && ch->codec != PQ_SNAPPY && ch->codec != PQ_ZSTD &&
          ch->codec != PQ_GZIP)
        return zb_error_set(err, ZB_ENOTSUP,
                            "'%s': column '%s', row group %lld: the %s codec is not supported "
                            "yet (zambezi reads UNCOMPRESSED, SNAPPY, GZIP and ZSTD); rewrite the "
                            "file with one of those",
                            r->name, c->name, (long long)g, codec_name(ch->codec));
    }
  }
  if (total != m->num_rows)
    return zb_error_set(err, ZB_EPARSE, "'%s': the row groups hold %lld rows, the footer says %lld",
                        r->name, (long long)total, (long long)m->num_rows);
  for (int64_t g = 0; g < m->num_row_groups; g++) {
    if (!keep_row_group(r, opts, g)) continue;
    r->rg_sel[r->nsel] = g;
    r->rg_row0[r->nsel++] = kept;
    kept += m->row_groups[g].num_rows;
  }
  r->rg_row0[r->nsel] = kept;
  r->nrows = kept;
  return ZB_OK;
}

/* The values a chunk's data pages declare, summed from their headers (no
 * page is decompressed).  A list column's level buffers are sized from
 * the chunk's count, so a footer that claims more than its pages hold is
 * caught here, before the allocation it would size. */
static zb_status page_values(const reader *r, const rcol *c, int64_t g, const pq_chunk *ch,
                             int64_t *out, zb_error *err) {
  *out = 0;
  if (ch->num_values == 0) return ZB_OK; /* nothing to read (such chunks may be unplaced) */
  int64_t start = 0;
  zb_error e;
  if (zb__pq_chunk_start(ch, r->data_end, &start, &e) != ZB_OK)
    return zb_error_set(err, ZB_EPARSE, "'%s': column '%s', row group %lld: %s", r->name,
                        c->name, (long long)g, e.message);
  const uint8_t *p = r->file + start, *end = p + ch->total_compressed;
  int64_t sum = 0;
  while (p < end && sum < ch->num_values) {
    pq_page_header h;
    int64_t used = 0;
    if (zb__pq_page_header(p, end - p, &h, &used, &e) != ZB_OK)
      return zb_error_set(err, ZB_EPARSE, "'%s': column '%s', row group %lld: %s", r->name,
                          c->name, (long long)g, e.message);
    p += used;
    if (h.compressed_size > end - p)
      return zb_error_set(err, ZB_EPARSE,
                          "'%s': column '%s', row group %lld: a page of %d bytes runs past its "
                          "chunk (%lld left)",
                          r->name, c->name, (long long)g, h.compressed_size, (long long)(end - p));
    p += h.compressed_size;
    if ((h.type == PQ_DATA_PAGE || h.type == PQ_DATA_PAGE_V2) && h.num_values > 0)
      sum += h.num_values;
  }
  *out = sum;
  return ZB_OK;
}

/* Whether chunk ch (column c, row group g) holds in its pages the values
 * its footer entry declares; a parse error naming both if not. */
static zb_status pages_agree(const reader *r, const rcol *c, int64_t g, const pq_chunk *ch,
                             zb_error *err) {
  int64_t pages = 0;
  ZB_RETURN_NOT_OK(page_values(r, c, g, ch, &pages, err));
  if (pages != ch->num_values)
    return zb_error_set(err, ZB_EPARSE, "'%s': column '%s', row group %lld: the footer says "
                        "%lld values, the pages %s %lld: the file is corrupt", r->name, c->name,
                        (long long)g, (long long)ch->num_values,
                        pages > ch->num_values ? "hold at least" : "hold", (long long)pages);
  return ZB_OK;
}

/* A flat column's rows are the row groups' counts, checked against the
 * file's; where a chunk claims more than 8 rows per stored byte (constant
 * or missing runs, or a lie) its pages are counted too before the column
 * is sized from them. */
static zb_status check_flat(const reader *r, const rcol *c, zb_error *err) {
  for (int64_t g = 0; g < r->nsel; g++) {
    const pq_row_group *rg = &r->meta.row_groups[r->rg_sel[g]];
    const pq_chunk *ch = &rg->columns[c->leaf];
    if (rg->num_rows / 8 <= ch->total_compressed + 8192) continue;
    if (ch->num_values != rg->num_rows)
      return zb_error_set(err, ZB_EPARSE, "'%s': column '%s', row group %lld: the chunk holds "
                          "%lld values for %lld rows", r->name, c->name,
                          (long long)r->rg_sel[g], (long long)ch->num_values,
                          (long long)rg->num_rows);
    ZB_RETURN_NOT_OK(pages_agree(r, c, r->rg_sel[g], ch, err));
  }
  return ZB_OK;
}

/* A list column's slots: each row group's chunk's value count, checked
 * against its pages, and their level bytes. */
static zb_status alloc_slots(reader *r, rcol *c, zb_error *err) {
  c->slot0 = (int64_t *)zb_malloc((size_t)(r->nsel + 1) * sizeof(int64_t));
  if (c->slot0 == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (column '%s')", c->name);
  int64_t total = 0;
  for (int64_t g = 0; g < r->nsel; g++) {
    const pq_chunk *ch = &r->meta.row_groups[r->rg_sel[g]].columns[c->leaf];
    if (ch->num_values < 0 || ch->num_values > INT64_MAX / 32 - total)
      return zb_error_set(err, ZB_EPARSE, "'%s': column '%s', row group %lld: corrupt value "
                          "count (%lld)", r->name, c->name, (long long)r->rg_sel[g],
                          (long long)ch->num_values);
    ZB_RETURN_NOT_OK(pages_agree(r, c, r->rg_sel[g], ch, err));
    c->slot0[g] = total;
    total += ch->num_values;
  }
  c->slot0[r->nsel] = total;
  c->nslots = total;
  c->defs = (uint8_t *)zb_malloc((size_t)(total > 0 ? total : 1));
  c->reps = (uint8_t *)zb_malloc((size_t)(total > 0 ? total : 1));
  if (c->defs == NULL || c->reps == NULL)
    return zb_error_set(err, ZB_ENOMEM, "out of host memory reading '%s' (column '%s': the "
                        "levels of %lld values)", r->name, c->name, (long long)total);
  return ZB_OK;
}

static zb_status alloc_columns(reader *r, zb_error *err) {
  if (r->nrows > INT64_MAX / 16) return zb_error_set(err, ZB_EPARSE, "'%s': corrupt row count", r->name);
  for (int64_t k = 0; k < r->ncols; k++) {
    rcol *c = &r->cols[k];
    int64_t n = r->nrows; /* a list column: its slots */
    if (c->max_rep > 0) {
      ZB_RETURN_NOT_OK(alloc_slots(r, c, err));
      n = c->nslots;
    } else {
      ZB_RETURN_NOT_OK(check_flat(r, c, err));
    }
    size_t bytes = c->kind == PQ_OUT_STRING ? (size_t)(n + 1) * sizeof(int64_t)
                   : c->kind == PQ_OUT_BOOL ? (size_t)n
                                            : (size_t)n * (size_t)c->out_width;
    void *p = zb_malloc(bytes > 0 ? bytes : 1);
    if (p == NULL)
      return zb_error_set(err, ZB_ENOMEM,
                          "out of host memory reading '%s' (column '%s': %zu bytes for the "
                          "%lld rows its footer declares)",
                          r->name, c->name, bytes, (long long)n);
    if (c->kind == PQ_OUT_STRING) {
      c->offsets = (int64_t *)p;
      c->offsets[0] = 0;
    } else {
      c->values = (uint8_t *)p;
    }
    if (c->max_def > 0) {
      c->valid = (uint8_t *)zb_malloc((size_t)(n > 0 ? n : 1));
      if (c->valid == NULL)
        return zb_error_set(err, ZB_ENOMEM, "out of host memory (column '%s')", c->name);
    }
  }
  int64_t nj = r->nsel * r->ncols;
  r->jobs = (pq_job *)zb_calloc((size_t)(nj > 0 ? nj : 1), sizeof(pq_job));
  if (r->jobs == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (chunks)");
  for (int64_t t = 0; t < nj; t++) {
    int64_t g = r->rg_sel[t / r->ncols];
    rcol *c = &r->cols[t % r->ncols];
    pq_job *j = &r->jobs[t];
    int64_t row0 = r->rg_row0[t / r->ncols];
    j->file = r->file;
    j->file_size = r->data_end;
    j->chunk = &r->meta.row_groups[g].columns[c->leaf];
    j->phys = c->se->type;
    j->max_def = c->max_def;
    j->kind = c->kind;
    j->out_width = c->out_width;
    j->type_length = c->se->type_length;
    j->decimal_scale = c->decimal_scale;
    j->float16 = c->float16;
    j->rows = r->meta.row_groups[g].num_rows;
    if (c->max_rep > 0) { /* slots: the chunk's values (level entries) */
      row0 = c->slot0[t / r->ncols];
      j->rows = c->slot0[t / r->ncols + 1] - row0;
      j->max_rep = c->max_rep;
      j->defs = c->defs + row0;
      j->reps = c->reps + row0;
    }
    if (c->kind == PQ_OUT_STRING)
      j->offsets = c->offsets + 1 + row0;
    else
      j->values = c->values + row0 * (c->kind == PQ_OUT_BOOL ? 1 : c->out_width);
    j->valid = c->valid != NULL ? c->valid + row0 : NULL;
    j->cancel = r->cancel;
  }
  return ZB_OK;
}

typedef struct fin_ctx {
  reader *r;
  zb_status *st;
  zb_error *errs;
} fin_ctx;

static void finish_task(void *ctx, int64_t k, int worker) {
  fin_ctx *f = (fin_ctx *)ctx;
  f->st[k] = finish_column(f->r, &f->r->cols[k], &f->errs[k]);
}

zb_status zb_parquet_read_buffer(const void *data, int64_t size, const char *name,
                                 const zb_parquet_options *opts, zb_table **out, zb_error *err) {
  ZB_NAME_OP("read_parquet");
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "Parquet: out is NULL");
  *out = NULL;
  zb_parquet_options defaults;
  if (opts == NULL) {
    zb_parquet_options_init(&defaults);
    opts = &defaults;
  }
  if (opts->pandas_metadata != NULL) *opts->pandas_metadata = NULL;
  if (name == NULL) name = "<buffer>";
  if (size < 0 || (data == NULL && size > 0))
    return zb_error_set(err, ZB_EINVAL, "Parquet: invalid buffer (size %lld)", (long long)size);
  if (opts->columns != NULL && opts->num_columns < 0)
    return zb_error_set(err, ZB_EINVAL, "Parquet: negative number of columns");
  const uint8_t *f = (const uint8_t *)data;
  if (size < 12 || memcmp(f, "PAR1", 4) != 0 || memcmp(f + size - 4, "PAR1", 4) != 0)
    return zb_error_set(err, ZB_EPARSE,
                        "'%s' is not a Parquet file (%s)", name,
                        size < 12 ? "too short" : "no PAR1 magic at both ends");
  uint32_t flen;
  memcpy(&flen, f + size - 8, 4);
  if ((int64_t)flen > size - 12)
    return zb_error_set(err, ZB_EPARSE,
                        "'%s': corrupt or truncated file (a footer of %u bytes in a file of %lld)",
                        name, flen, (long long)size);
  reader r;
  memset(&r, 0, sizeof r);
  pthread_mutex_init(&r.mu, NULL);
  r.name = name;
  r.file = f;
  r.data_end = size - 8 - (int64_t)flen;
  r.cancel = opts->cancel;
  r.err_task = -1;
  zb_column **cols = NULL;
  const char **names = NULL;
  zb_status st = zb__pq_meta_decode(f + r.data_end, flen, &r.meta, err);
  if (st != ZB_OK) {
    if (st == ZB_EPARSE && err != NULL) {
      char msg[sizeof err->message];
      snprintf(msg, sizeof msg, "%s", err->message);
      zb_error_set(err, st, "'%s': %s", name, msg);
    }
    pthread_mutex_destroy(&r.mu);
    return st;
  }
  if ((st = walk_schema(&r, err)) != ZB_OK) goto done;
  if ((st = select_columns(&r, opts, err)) != ZB_OK) goto done;
  if ((st = arrow_hints(&r, err)) != ZB_OK) goto done;
  if ((st = check_chunks(&r, opts, err)) != ZB_OK) goto done;
  if (opts->row_groups_total != NULL) *opts->row_groups_total = r.meta.num_row_groups;
  if (opts->row_groups_read != NULL) *opts->row_groups_read = r.nsel;
  if ((st = alloc_columns(&r, err)) != ZB_OK) goto done;
  int64_t nj = r.nsel * r.ncols;
  if (nj > 0) {
    st = zb_parallel_for(nj, chunk_task, &r, err);
    free_scratch(&r);
    if (st != ZB_OK) goto done;
    if (r.err_task >= 0) {
      st = r.err_st;
      if (err != NULL) *err = r.err;
      goto done;
    }
    for (int64_t t = 0; t < nj; t++) r.cols[t % r.ncols].nulls += r.jobs[t].nulls;
    /* strings: one chars buffer per column (join_task) */
    bool any_str = false;
    for (int64_t k = 0; k < r.ncols; k++) {
      rcol *c = &r.cols[k];
      if (c->kind != PQ_OUT_STRING) continue;
      int64_t total = 0;
      for (int64_t g = 0; g < r.nsel; g++) {
        pq_job *j = &r.jobs[g * r.ncols + k];
        j->chars_base = total;
        total += j->chars_len;
      }
      any_str = true;
    }
    if (any_str) {
      zb_status *sts = (zb_status *)zb_calloc((size_t)r.ncols, sizeof(zb_status));
      if (sts == NULL) {
        st = zb_error_set(err, ZB_ENOMEM, "out of host memory (columns)");
        goto done;
      }
      join_ctx jc = {&r, sts};
      st = zb_parallel_for(r.ncols, join_task, &jc, err);
      for (int64_t k = 0; k < r.ncols && st == ZB_OK; k++)
        if (sts[k] != ZB_OK)
          st = zb_error_set(err, ZB_ENOMEM, "out of host memory (column '%s': its strings)",
                            r.cols[k].name);
      zb_free(sts);
      if (st != ZB_OK) goto done;
      if ((st = zb_parallel_for(nj, gather_task, &r, err)) != ZB_OK) goto done;
    }
  }
  if (r.ncols > 0) {
    zb_status *sts = (zb_status *)zb_calloc((size_t)r.ncols, sizeof(zb_status));
    zb_error *errs = (zb_error *)zb_malloc((size_t)r.ncols * sizeof(zb_error));
    if (sts == NULL || errs == NULL) {
      zb_free(sts);
      zb_free(errs);
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (columns)");
      goto done;
    }
    fin_ctx fc = {&r, sts, errs};
    st = zb_parallel_for(r.ncols, finish_task, &fc, err);
    for (int64_t k = 0; k < r.ncols && st == ZB_OK; k++)
      if (sts[k] != ZB_OK) {
        st = sts[k];
        if (err != NULL) *err = errs[k];
      }
    zb_free(sts);
    zb_free(errs);
    if (st != ZB_OK) goto done;
    /* list columns: their slots into lists (zb_column_filter runs on the
     * pool, so one column at a time from here) */
    for (int64_t k = 0; k < r.ncols; k++)
      if (r.cols[k].max_rep > 0 && (st = assemble_list(&r, &r.cols[k], err)) != ZB_OK) goto done;
  }
  cols = (zb_column **)zb_calloc((size_t)(r.ncols > 0 ? r.ncols : 1), sizeof(zb_column *));
  names = (const char **)zb_calloc((size_t)(r.ncols > 0 ? r.ncols : 1), sizeof(char *));
  if (cols == NULL || names == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (table)");
    goto done;
  }
  for (int64_t k = 0; k < r.ncols; k++) {
    cols[k] = r.cols[k].col;
    names[k] = r.cols[k].name;
  }
  if (r.ncols == 0) {
    /* a table of no columns keeps the row count: select none of one column */
    zb_column *tmp = NULL;
    zb_table *t1 = NULL;
    const char *nm = "_";
    st = zb_column_new(ZB_BOOL, r.nrows, false, 0, &tmp, err);
    if (st == ZB_OK) st = zb_table_make(1, &tmp, &nm, &t1, err);
    if (st == ZB_OK) st = zb_table_select(t1, 0, NULL, out, err);
    zb_column_release(tmp);
    zb_table_release(t1);
  } else {
    st = zb_table_make(r.ncols, cols, names, out, err);
  }
  if (st == ZB_OK && opts->pandas_metadata != NULL && r.meta.pandas.p != NULL) {
    char *s = copy_name(&r.meta.pandas);
    if (s == NULL) {
      zb_table_release(*out);
      *out = NULL;
      st = zb_error_set(err, ZB_ENOMEM, "out of host memory (pandas metadata)");
    }
    *opts->pandas_metadata = s;
  }
done:
  zb_free(cols);
  zb_free(names);
  reader_free(&r);
  return st;
}

void zb_parquet_options_init(zb_parquet_options *o) {
  memset(o, 0, sizeof *o);
}

zb_status zb_parquet_read_file(const char *path, const zb_parquet_options *opts, zb_table **out,
                               zb_error *err) {
  ZB_NAME_OP("read_parquet");
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "Parquet: out is NULL");
  *out = NULL;
  if (opts != NULL && opts->pandas_metadata != NULL) *opts->pandas_metadata = NULL;
  if (path == NULL) return zb_error_set(err, ZB_EINVAL, "Parquet: path is NULL");
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return zb_error_set(err, ZB_EIO, "cannot open '%s': %s", path, strerror(errno));
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    int e = errno;
    close(fd);
    return zb_error_set(err, ZB_EIO, "cannot stat '%s': %s", path, strerror(e));
  }
  if (!S_ISREG(sb.st_mode)) {
    close(fd);
    return zb_error_set(err, ZB_EIO, "'%s' is not a regular file", path);
  }
  if (sb.st_size < 12) {
    close(fd);
    return zb_error_set(err, ZB_EPARSE, "'%s' is not a Parquet file (too short: %lld bytes)",
                        path, (long long)sb.st_size);
  }
  void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  close(fd);
  if (m == MAP_FAILED) return zb_error_set(err, ZB_EIO, "cannot map '%s': %s", path, strerror(e));
  zb_status st = zb_parquet_read_buffer(m, (int64_t)sb.st_size, path, opts, out, err);
  munmap(m, (size_t)sb.st_size);
  return st;
}
