/*
 * builder.c -- the column builder's life and its end (builder.h): options,
 * columns and parts, the slots every part fills, per-worker scratch and
 * value errors; then, once the parts are done, compaction (rows placed by
 * upper bounds move together), the final types (builder_infer.c), the
 * strings' characters copied once from the source's text in parallel,
 * booleans packed into bits, dates into int32, and categoricals: a
 * dictionary of the sorted distinct strings, built by hashing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/builder_internal.h"

/* ------------------------------------------------------------------------ */
/* Lifecycle                                                                */
/* ------------------------------------------------------------------------ */

void zb__builder_options_init(zb__builder_options *o) {
  memset(o, 0, sizeof *o);
  o->label = "read";
  o->text.decimal = '.';
}

zb_status zb__builder_new(int64_t ncols, int64_t nparts, const zb__builder_options *opts,
                          zb__builder **out, zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "builder: out is NULL");
  *out = NULL;
  if (ncols < 0 || nparts < 0 || opts == NULL ||
      (opts->text.num_na_values > 0 && opts->text.na_values == NULL) ||
      opts->text.num_na_values < 0)
    return zb_error_set(err, ZB_EINVAL, "builder: bad columns, parts or options");
  const char *label = opts->label ? opts->label : "read";
  zb__builder *b = (zb__builder *)zb_calloc(1, sizeof(zb__builder));
  if (b == NULL) return zb_error_set(err, ZB_ENOMEM, "out of host memory (%s)", label);
  b->o = *opts;
  b->o.label = label;
  b->ncols = ncols;
  b->nparts = nparts;
  zb_status st = zb__na_init(&b->na, &b->o.text, label, err);
  if (st != ZB_OK) goto fail;
  int64_t npc = ncols * nparts;
  b->cols = (zb__bcol *)zb_calloc((size_t)(ncols > 0 ? ncols : 1), sizeof(zb__bcol));
  b->parts = (zb__bpart *)zb_calloc((size_t)(nparts > 0 ? nparts : 1), sizeof(zb__bpart));
  b->pc = (zb__bpcol *)zb_calloc((size_t)(npc > 0 ? npc : 1), sizeof(zb__bpcol));
  if (b->cols == NULL || b->parts == NULL || b->pc == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (%s)", label);
    goto fail;
  }
  for (int64_t j = 0; j < ncols; j++) b->cols[j].name = "", b->cols[j].type = ZB_STRING;
  *out = b;
  return ZB_OK;
fail:
  zb__builder_release(b);
  return st;
}

void zb__builder_release(zb__builder *b) {
  if (b == NULL) return;
  if (b->cols)
    for (int64_t j = 0; j < b->ncols; j++) {
      zb_column_release(b->cols[j].col);
      zb_buffer_release(b->cols[j].vals);
      zb_buffer_release(b->cols[j].valid);
      zb_buffer_release(b->cols[j].chars);
    }
  zb_free(b->cols);
  if (b->pc)
    for (int64_t i = 0; i < b->nparts * b->ncols; i++) {
      zb_free(b->pc[i].negzero);
      zb_free(b->pc[i].own);
    }
  zb_free(b->pc);
  zb_free(b->parts);
  zb_free(b->strcols);
  for (int w = 0; w < b->ws.n; w++) {
    zb__bscratch *ws = (zb__bscratch *)zb__worker_at(&b->ws, w);
    if (ws == NULL) continue;
    zb_free(ws->cols);
    zb_free(ws->u);
    zb_free(ws->num);
    zb_free(ws);
  }
  zb__worker_slots_reset(&b->ws);
  zb_free((void *)b->na.s);
  zb_free(b->na.len);
  zb_free(b);
}

void zb__builder_set_column(zb__builder *b, int64_t col, const char *name, zb_type_id type,
                            bool fixed) {
  zb__bcol *ci = &b->cols[col];
  ci->name = name ? name : "";
  ci->fixed = fixed;
  ci->type = fixed ? type : ZB_STRING;
}

void zb__builder_set_inference(zb__builder *b, int64_t col, int allowed) {
  b->cols[col].no_infer = B_ALL & ~allowed;
}

void zb__builder_set_part(zb__builder *b, int64_t part, int64_t max_rows, int64_t pos0,
                          const zb__text_part *text) {
  zb__bpart *pt = &b->parts[part];
  pt->max_rows = max_rows > 0 ? max_rows : 0;
  pt->pos0 = pos0;
  if (text != NULL) pt->text = *text;
}

zb_status zb__builder_alloc(zb__builder *b, zb_error *err) {
  int64_t n = 0;
  for (int64_t k = 0; k < b->nparts; k++) {
    b->parts[k].row0 = n;
    n += b->parts[k].max_rows;
  }
  b->nslots = n;
  for (int64_t j = 0; j < b->ncols; j++) {
    zb__bcol *ci = &b->cols[j];
    zb_type_id ty = ci->type;
    bool slots8 = !ci->fixed || ty == ZB_BOOL || ty == ZB_STRING || ty == ZB_CATEGORICAL;
    ci->width = slots8 ? 8 : zb_type_width(ty);
    ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, (n + 1) * ci->width, &ci->vals, err));
    ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, (n + 7) / 8, &ci->valid, err));
    memset(ci->valid->data, 0xff, (size_t)((n + 7) / 8));
  }
  for (int64_t k = 0; k < b->nparts; k++)
    for (int64_t j = 0; j < b->ncols; j++) {
      zb__bpcol *cc = zb__pcol(b, k, j);
      zb_type_id ty = b->cols[j].type;
      cc->mask = B_ALL & ~b->cols[j].no_infer;
      cc->rep = !b->cols[j].fixed ? REP_NONE
                : (ty == ZB_STRING || ty == ZB_CATEGORICAL) ? REP_STR
                : ty == ZB_BOOL ? REP_BOOL : REP_NONE;
    }
  return ZB_OK;
}

zb__bscratch *zb__builder_scratch(zb__builder *b, int worker) {
  void **slot = zb__worker_slot(&b->ws, worker);
  if (slot == NULL) return NULL;
  if (*slot == NULL) {
    zb__bscratch *ws = (zb__bscratch *)zb_calloc(1, sizeof(zb__bscratch));
    if (ws == NULL) return NULL;
    ws->worker = worker;
    *slot = ws;
  }
  return (zb__bscratch *)*slot;
}

void **zb__worker_slot(zb__worker_slots *s, int worker) {
  if (worker < 0 || worker >= ZB_WORKER_SLOTS_MAX) return NULL;
  int n = __atomic_load_n(&s->n, __ATOMIC_RELAXED);
  while (n <= worker && !__atomic_compare_exchange_n(&s->n, &n, worker + 1, true,
                                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  if (worker < ZB_WORKER_SLOTS_FEW) return &s->few[worker];
  void **more = __atomic_load_n(&s->more, __ATOMIC_ACQUIRE);
  if (more == NULL) {
    void **made = (void **)zb_calloc(ZB_WORKER_SLOTS_MAX, sizeof(void *));
    if (made == NULL) return NULL;
    if (__atomic_compare_exchange_n(&s->more, &more, made, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
      more = made;
    else
      zb_free(made); /* another worker made it first: more is theirs */
  }
  return &more[worker];
}

void *zb__worker_at(const zb__worker_slots *s, int worker) {
  if (worker < 0 || worker >= ZB_WORKER_SLOTS_MAX) return NULL;
  if (worker < ZB_WORKER_SLOTS_FEW) return s->few[worker];
  return s->more != NULL ? s->more[worker] : NULL;
}

void zb__worker_slots_reset(zb__worker_slots *s) {
  zb_free(s->more);
  memset(s, 0, sizeof *s);
}

bool zb__builder_grow(char **p, int64_t *cap, int64_t need) {
  if (need <= *cap) return true;
  int64_t c = need < 256 ? 256 : need < ((int64_t)1 << 20) ? need * 2 : need + (need >> 4);
  char *q = (char *)zb_malloc((size_t)c);
  if (q == NULL) return false;
  zb_free(*p);
  *p = q;
  *cap = c;
  return true;
}

/* ------------------------------------------------------------------------ */
/* Parts and their errors                                                   */
/* ------------------------------------------------------------------------ */

void zb__builder_fail(zb__builder *b, int64_t k, int64_t col, zb_status st, int kind,
                      int64_t pos, const char *text, int64_t n) {
  zb__build_error *e = &b->parts[k].err;
  if (e->st != ZB_OK && e->pos <= pos) return;
  e->st = st;
  e->kind = kind;
  e->pos = pos;
  e->col = col;
  char tmp[48];
  if (n > 40) {
    memcpy(tmp, text, 37);
    memcpy(tmp + 37, "...", 3);
    n = 40;
    text = tmp;
  }
  snprintf(e->text, sizeof e->text, "%.*s", (int)n, text);
}

void zb__builder_part_done(zb__builder *b, int64_t part, int64_t nrows) {
  zb__bpart *pt = &b->parts[part];
  pt->nrows = nrows < 0 ? 0 : nrows > pt->max_rows ? pt->max_rows : nrows;
}

const zb__build_error *zb__builder_error(const zb__builder *b, int64_t part) {
  const zb__build_error *e = &b->parts[part].err;
  return e->st != ZB_OK ? e : NULL;
}

zb_type_id zb__builder_column_type(const zb__builder *b, int64_t col) {
  return b->cols[col].type;
}

/* ------------------------------------------------------------------------ */
/* Resolving: compaction, final types                                       */
/* ------------------------------------------------------------------------ */

/* Rows are placed by upper bounds; where parts left gaps (or much unused
 * room), move them together into buffers of the right size. */
static zb_status compact(zb__builder *b, zb_error *err) {
  int64_t n = 0;
  bool gaps = false;
  for (int64_t k = 0; k < b->nparts; k++) {
    const zb__bpart *pt = &b->parts[k];
    if (pt->nrows > 0 && pt->row0 != n) gaps = true;
    n += pt->nrows;
  }
  b->nrows = n;
  int64_t slack = b->nslots - n;
  if (!gaps && !(slack > 4096 && slack > n / 4)) return ZB_OK;
  for (int64_t j = 0; j < b->ncols; j++) {
    zb__bcol *ci = &b->cols[j];
    zb_buffer *vals = NULL, *valid = NULL;
    zb_status st = zb_buffer_new(ZB_CPU, (n + 1) * ci->width, &vals, err);
    if (st == ZB_OK) st = zb_buffer_new(ZB_CPU, (n + 7) / 8, &valid, err);
    if (st != ZB_OK) {
      zb_buffer_release(vals);
      return st;
    }
    memset(valid->data, 0xff, (size_t)((n + 7) / 8));
    int64_t at = 0;
    for (int64_t k = 0; k < b->nparts; k++) {
      const zb__bpart *pt = &b->parts[k];
      memcpy((char *)vals->data + at * ci->width,
             (const char *)ci->vals->data + pt->row0 * ci->width,
             (size_t)(pt->nrows * ci->width));
      zb__bitmap_copy((uint8_t *)valid->data, at, (const uint8_t *)ci->valid->data, pt->row0,
                      pt->nrows);
      zb__bpcol *cc = zb__pcol(b, k, j);
      for (int64_t q = 0; q < cc->nnz; q++) cc->negzero[q] += at - pt->row0;
      at += pt->nrows;
    }
    zb_buffer_release(ci->vals);
    zb_buffer_release(ci->valid);
    ci->vals = vals;
    ci->valid = valid;
  }
  int64_t at = 0;
  for (int64_t k = 0; k < b->nparts; k++) {
    b->parts[k].row0 = at;
    at += b->parts[k].nrows;
  }
  return ZB_OK;
}

zb_status zb__builder_resolve(zb__builder *b, zb_error *err) {
  ZB_RETURN_NOT_OK(compact(b, err));
  zb__builder_infer_types(b);
  if (b->nparts > 0) {
    ZB_RETURN_NOT_OK(zb_parallel_for(b->nparts, zb__builder_fix_task, b, err));
    zb_status st = b->stop;
    if (st == ZB_ENOMEM)
      return zb_error_set(err, st, "out of host memory (%s parser)", b->o.label);
    if (st == ZB_ECANCEL) return zb_error_set(err, st, "%s read cancelled", b->o.label);
    if (st != ZB_OK)
      return zb_error_set(err, st, "%s: reading values again failed (%s)", b->o.label,
                          zb_status_name(st));
  }
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Finishing: strings, packing                                              */
/* ------------------------------------------------------------------------ */

/* A part's strings of every string column: copied (decoded) from its text
 * into the columns' characters, a few thousand rows at a time across the
 * columns so the text is read once from memory; each slot's cell becomes
 * the row's start offset. */
static void gather_task(void *ctx, int64_t k, int worker) {
  zb__builder *b = (zb__builder *)ctx;
  const zb__bpart *pt = &b->parts[k];
  const zb__text_source *src = &b->o.source;
  (void)worker;
  for (int64_t g0 = pt->row0; g0 < pt->row0 + pt->nrows; g0 += 4096) {
    int64_t g1 = ZB_MIN(g0 + 4096, pt->row0 + pt->nrows);
    for (int64_t q = 0; q < b->nstr; q++) {
      zb__bcol *ci = &b->cols[b->strcols[q]];
      zb__bpcol *cc = zb__pcol(b, k, b->strcols[q]);
      const char *base = cc->own ? cc->own : pt->text.base;
      const char *dend = cc->own ? cc->own + cc->own_cap : pt->text.end;
      char *chars = (char *)ci->chars->data;
      uint64_t *v = (uint64_t *)ci->vals->data;
      int64_t at = cc->base, stop = cc->end - 32; /* 32-byte copies stay in this part's share */
      for (int64_t g = g0; g < g1; g++) {
        uint64_t cell = v[g];
        uint32_t len = (uint32_t)(cell >> 32);
        v[g] = (uint64_t)at;
        if (len == ZB_CELL_MISSING) continue;
        const char *p = base + (uint32_t)cell;
        int64_t m = len & ~ZB_CELL_FLAG;
        if (len & ZB_CELL_FLAG)
          m = src->decode(src->ctx, p, m, chars + at, m);
        else if (m <= 16 && at <= stop && p + 16 <= dend)
          memcpy(chars + at, p, 16);
        else if (m <= 32 && at <= stop && p + 32 <= dend)
          memcpy(chars + at, p, 32);
        else
          memcpy(chars + at, p, (size_t)m);
        at += m;
      }
      cc->base = at;
    }
  }
}

/* Every string column's characters, gathered from the parts. */
static zb_status gather_strings(zb__builder *b, zb_error *err) {
  b->strcols = (int64_t *)zb_malloc((size_t)(b->ncols > 0 ? b->ncols : 1) * sizeof(int64_t));
  if (b->strcols == NULL)
    return zb_error_set(err, ZB_ENOMEM, "out of host memory (%s)", b->o.label);
  b->nstr = 0;
  for (int64_t j = 0; j < b->ncols; j++) {
    zb__bcol *ci = &b->cols[j];
    if (ci->type != ZB_STRING && ci->type != ZB_CATEGORICAL) continue;
    b->strcols[b->nstr++] = j;
    int64_t total = 0;
    for (int64_t k = 0; k < b->nparts; k++) {
      zb__bpcol *cc = zb__pcol(b, k, j);
      cc->base = total;
      total += cc->nchars;
      cc->end = total;
    }
    ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, total, &ci->chars, err));
    ((int64_t *)ci->vals->data)[b->nrows] = total;
  }
  if (b->nstr > 0) ZB_RETURN_NOT_OK(zb_parallel_for(b->nparts, gather_task, b, err));
  return ZB_OK;
}

/* Booleans held in 8-byte slots -> bits; dates -> int32. */
static zb_status pack_column(zb__builder *b, zb__bcol *ci, zb_error *err) {
  int64_t n = b->nrows;
  const int64_t *v = (const int64_t *)ci->vals->data;
  zb_buffer *out = NULL;
  if (ci->type == ZB_BOOL) {
    ZB_RETURN_NOT_OK(zb_buffer_new_zeroed(ZB_CPU, (n + 7) / 8, &out, err));
    uint8_t *bits = (uint8_t *)out->data;
    for (int64_t g = 0; g < n; g++) bits[g >> 3] |= (uint8_t)((v[g] != 0) << (g & 7));
  } else {
    ZB_RETURN_NOT_OK(zb_buffer_new(ZB_CPU, n * 4, &out, err));
    int32_t *days = (int32_t *)out->data;
    for (int64_t g = 0; g < n; g++) days[g] = (int32_t)v[g];
  }
  zb_buffer_release(ci->vals);
  ci->vals = out;
  ci->width = 0;
  return ZB_OK;
}

/* ------------------------------------------------------------------------ */
/* Categoricals: a sorted dictionary                                        */
/* ------------------------------------------------------------------------ */

typedef struct dict_entry {
  const char *s;
  int64_t n;
  int32_t code; /* first-seen code */
} dict_entry;

static int dict_cmp(const void *a, const void *b) {
  const dict_entry *x = (const dict_entry *)a, *y = (const dict_entry *)b;
  int64_t m = x->n < y->n ? x->n : y->n;
  int c = memcmp(x->s, y->s, (size_t)m);
  if (c != 0) return c;
  return x->n < y->n ? -1 : x->n > y->n;
}

static uint64_t hash_bytes(const char *s, int64_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int64_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

/* Replace the string column *colp with a categorical of sorted categories. */
static zb_status encode_categorical(zb_column **colp, const char *label, const char *name,
                                   zb_error *err) {
  zb_column *sc = *colp;
  int64_t n = sc->length;
  const int64_t *off = (const int64_t *)sc->data->data;
  const char *chars = (const char *)sc->chars->data;
  zb_status st = ZB_OK;
  int64_t cap = 64, nuniq = 0;
  int32_t *table = NULL, *remap = NULL;
  dict_entry *u = NULL;
  zb_buffer *codes = NULL;
  zb_column *dict = NULL, *cat = NULL;
  table = (int32_t *)zb_malloc((size_t)cap * sizeof(int32_t));
  u = (dict_entry *)zb_malloc((size_t)(cap / 2) * sizeof(dict_entry));
  if (table == NULL || u == NULL) goto nomem;
  memset(table, 0xff, (size_t)cap * sizeof(int32_t));
  st = zb_buffer_new(ZB_CPU, n * (int64_t)sizeof(int32_t), &codes, err);
  if (st != ZB_OK) goto done;
  int32_t *cv = (int32_t *)codes->data;
  for (int64_t i = 0; i < n; i++) {
    if (!zb_column_is_valid(sc, i)) {
      cv[i] = 0;
      continue;
    }
    const char *s = chars + off[i];
    int64_t len = off[i + 1] - off[i];
    uint64_t h = hash_bytes(s, len);
    int64_t slot = (int64_t)(h & (uint64_t)(cap - 1));
    while (table[slot] >= 0) {
      dict_entry *e = &u[table[slot]];
      if (e->n == len && memcmp(e->s, s, (size_t)len) == 0) break;
      slot = (slot + 1) & (cap - 1);
    }
    if (table[slot] < 0) {
      if (nuniq >= INT32_MAX - 1) {
        st = zb_error_set(err, ZB_EOVERFLOW, "%s column '%s': too many categories", label,
                          name);
        goto done;
      }
      u[nuniq].s = s;
      u[nuniq].n = len;
      u[nuniq].code = (int32_t)nuniq;
      table[slot] = (int32_t)nuniq++;
      if (nuniq * 2 >= cap) { /* grow and rehash */
        int64_t ncap = cap * 2;
        int32_t *nt = (int32_t *)zb_malloc((size_t)ncap * sizeof(int32_t));
        dict_entry *nu = (dict_entry *)zb_malloc((size_t)(ncap / 2) * sizeof(dict_entry));
        if (nt == NULL || nu == NULL) {
          zb_free(nt);
          zb_free(nu);
          goto nomem;
        }
        memset(nt, 0xff, (size_t)ncap * sizeof(int32_t));
        memcpy(nu, u, (size_t)nuniq * sizeof(dict_entry));
        for (int64_t j = 0; j < nuniq; j++) {
          int64_t sl = (int64_t)(hash_bytes(nu[j].s, nu[j].n) & (uint64_t)(ncap - 1));
          while (nt[sl] >= 0) sl = (sl + 1) & (ncap - 1);
          nt[sl] = (int32_t)j;
        }
        zb_free(table);
        zb_free(u);
        table = nt;
        u = nu;
        cap = ncap;
        cv[i] = u[nuniq - 1].code;
        continue;
      }
    }
    cv[i] = table[slot];
  }
  /* Sort categories; remap codes. */
  qsort(u, (size_t)nuniq, sizeof(dict_entry), dict_cmp);
  remap = (int32_t *)zb_malloc((size_t)(nuniq > 0 ? nuniq : 1) * sizeof(int32_t));
  if (remap == NULL) goto nomem;
  int64_t total = 0;
  for (int64_t j = 0; j < nuniq; j++) {
    remap[u[j].code] = (int32_t)j;
    total += u[j].n;
  }
  for (int64_t i = 0; i < n; i++)
    if (zb_column_is_valid(sc, i)) cv[i] = remap[cv[i]];
  st = zb_column_new(ZB_STRING, nuniq, false, total, &dict, err);
  if (st != ZB_OK) goto done;
  {
    int64_t *doff = (int64_t *)dict->data->data;
    char *dch = (char *)dict->chars->data;
    int64_t at = 0;
    doff[0] = 0;
    for (int64_t j = 0; j < nuniq; j++) {
      memcpy(dch + at, u[j].s, (size_t)u[j].n);
      at += u[j].n;
      doff[j + 1] = at;
    }
  }
  st = zb_column_make(ZB_CATEGORICAL, n, 0, sc->validity, codes, NULL, dict, sc->null_count,
                      &cat, err);
  if (st != ZB_OK) goto done;
  zb_column_release(sc);
  *colp = cat;
  goto done;
nomem:
  st = zb_error_set(err, ZB_ENOMEM, "out of host memory (%s categorical '%s')", label, name);
done:
  zb_free(table);
  zb_free(u);
  zb_free(remap);
  zb_buffer_release(codes);
  zb_column_release(dict);
  return st;
}

zb_status zb__builder_finish(zb__builder *b, zb_column **cols, zb_error *err) {
  for (int64_t j = 0; j < b->ncols; j++) cols[j] = NULL;
  ZB_RETURN_NOT_OK(gather_strings(b, err));
  for (int64_t j = 0; j < b->ncols; j++) {
    zb__bcol *ci = &b->cols[j];
    ci->nulls = 0;
    for (int64_t k = 0; k < b->nparts; k++) ci->nulls += zb__pcol(b, k, j)->nulls;
    zb_type_id ty = ci->type;
    if (ty == ZB_BOOL || (ty == ZB_DATE32 && ci->width == 8))
      ZB_RETURN_NOT_OK(pack_column(b, ci, err));
    zb_type_id as = ty == ZB_CATEGORICAL ? ZB_STRING : ty;
    ZB_RETURN_NOT_OK(zb_column_make(as, b->nrows, 0, ci->valid, ci->vals,
                                    as == ZB_STRING ? ci->chars : NULL, NULL, ci->nulls, &ci->col,
                                    err));
    if (ty == ZB_CATEGORICAL)
      ZB_RETURN_NOT_OK(encode_categorical(&ci->col, b->o.label, ci->name, err));
  }
  for (int64_t j = 0; j < b->ncols; j++) {
    cols[j] = b->cols[j].col;
    b->cols[j].col = NULL;
  }
  return ZB_OK;
}
