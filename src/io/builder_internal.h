/*
 * builder_internal.h -- the column builder's state, shared by its files:
 * builder.c (lifecycle, compaction, strings, categoricals, finishing),
 * builder_infer.c (text cells to values: inference, widening, NA strings)
 * and builder_put.c (typed values).  Nothing outside src/io/builder*.c
 * includes it; readers use builder.h.
 *
 * Storage: every column has one 8-byte slot per row (the slots of all
 * parts, part after part; a fixed column of a narrower type has slots of
 * its width), a validity bitmap, and, for strings, one character buffer
 * filled at the end.  Until then a string column's slot holds the row's
 * text cell (so strings are copied once, from the source, in finish), and
 * an inferred column's slot holds its part's current representation (rep)
 * of the value: int64, uint64, double bits, bool, days or microseconds.
 */
#ifndef ZAMBEZI_IO_BUILDER_INTERNAL_H
#define ZAMBEZI_IO_BUILDER_INTERNAL_H

#include "core/internal.h"
#include "io/builder.h"

/* How a part stores a column's values in the column's slots. */
enum { REP_NONE, REP_BOOL, REP_INT, REP_UINT, REP_FLOAT, REP_DATE, REP_TS, REP_STR };

/* Inference bits: the types every value seen so far parses as. */
enum { B_BOOL = 1, B_INT = 2, B_UINT = 4, B_FLOAT = 8, B_DATE = 16, B_TS = 32, B_ALL = 63 };

/* One column of one part. */
typedef struct zb__bpcol {
  int mask;         /* inference bits of its values */
  int rep;          /* REP_*: how its values are stored so far */
  bool has_value;   /* a value that is not null */
  int64_t nulls;
  int64_t nchars;   /* REP_STR: bytes of its strings (decoded) */
  int64_t *negzero; /* REP_INT/UINT: rows whose text was a negative zero */
  int64_t nnz, cap_nz;
  int64_t base, end; /* strings: its part of the column's characters */
  char *own;         /* typed strings: their bytes (cells point here) */
  int64_t own_cap;
} zb__bpcol;

/* One column. */
typedef struct zb__bcol {
  const char *name;
  zb_type_id type;
  bool fixed;       /* type given, not inferred */
  int no_infer;     /* inference bits it may not take (zb__builder_set_inference) */
  int width;        /* bytes per slot of vals */
  zb_buffer *vals;  /* one slot per row (+1: string offsets) */
  zb_buffer *valid; /* one bit per row */
  zb_buffer *chars; /* strings: every part's characters */
  int64_t nulls;
  zb_column *col;
} zb__bcol;

/* One part. */
typedef struct zb__bpart {
  zb__text_part text;
  int64_t pos0;
  int64_t max_rows;
  int64_t row0;  /* its first slot */
  int64_t nrows; /* rows it holds */
  zb__build_error err;
} zb__bpart;

/* Per-worker scratch. */
typedef struct zb__bscratch {
  char *u, *num; /* decoded text; the float parser's slow path */
  int64_t ucap, ncap;
  int64_t *cols; /* ncols column numbers (resolve) */
  int worker;
  bool nomem;     /* the conversion failed: out of memory ... */
  zb_status fail; /* ... or, when not ZB_OK, this refetch status */
} zb__bscratch;

typedef struct zb__na_set {
  const char *const *s;
  int64_t *len;
  int64_t n;
  uint64_t lens[256]; /* per first byte: bit k, some NA string has length k (63: longer) */
  int64_t maxlen;     /* of the NA strings */
  bool empty;         /* "" is NA */
} zb__na_set;

struct zb__builder {
  zb__builder_options o;
  zb__na_set na;
  int64_t ncols, nparts;
  zb__bcol *cols;
  zb__bpart *parts;
  zb__bpcol *pc;         /* nparts x ncols */
  int64_t nslots;        /* sum of max_rows */
  int64_t nrows;         /* after compaction */
  zb__worker_slots ws;    /* zb__bscratch *, allocated on first use */
  int64_t *strcols, nstr; /* the string columns, for gathering */
  zb_status stop;         /* atomic: why a parallel stage failed (the first) */
};

static inline zb__bpcol *zb__pcol(const zb__builder *b, int64_t k, int64_t j) {
  return &b->pc[k * b->ncols + j];
}

static inline void zb__set_null(uint8_t *valid, int64_t g) {
  __atomic_fetch_and(&valid[g >> 3], (uint8_t) ~(1u << (g & 7)), __ATOMIC_RELAXED);
}

/* The worker's scratch (allocated on first use), or NULL. */
zb__bscratch *zb__builder_scratch(zb__builder *b, int worker);

/* Grow *p to at least need bytes (contents not kept). */
bool zb__builder_grow(char **p, int64_t *cap, int64_t need);

/* Stop a parallel stage with st (the first status is kept). */
static inline void zb__builder_stop(zb__builder *b, zb_status st) {
  zb_status ok = ZB_OK;
  __atomic_compare_exchange_n(&b->stop, &ok, st, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* Record a value error at pos in part k if it is the part's earliest. */
void zb__builder_fail(zb__builder *b, int64_t k, int64_t col, zb_status st, int kind,
                      int64_t pos, const char *text, int64_t n);

/* builder_infer.c: the NA strings of o (borrowed). */
zb_status zb__na_init(zb__na_set *na, const zb__text_options *o, const char *label,
                      zb_error *err);
/* builder_infer.c: the type every value of column j parses as, per part. */
void zb__builder_infer_types(zb__builder *b);
/* builder_infer.c: part k's columns converted to their final types
 * (a parallel task). */
void zb__builder_fix_task(void *ctx, int64_t k, int worker);
/* builder_infer.c: the slot representation of a final type. */
int zb__rep_of_type(zb_type_id ty);

#endif /* ZAMBEZI_IO_BUILDER_INTERNAL_H */
