/*
 * join_ops.c -- the checked entry point of joins (zambezi/join.h):
 * zb_table_join_indices.
 *
 * It validates the key indices, brings every key column pair to types the
 * hash identity compares directly (integers of any width compare by value
 * as they are; uint64 values above INT64_MAX are masked to null against a
 * signed key; integer/float and float32/float64 pairs become float64;
 * timestamps of different units the finer unit; categoricals with
 * different dictionaries share their union; string/categorical mixes
 * become strings),
 * hands the call to zb__dispatch (src/core/dispatch.c: the backend of the
 * data's device, or the CPU over host copies of the prepared keys when that
 * backend lacks joins of these keys or declines them), and, for outer
 * joins or when asked, sorts the index pairs stably by the coalesced join
 * keys (unless the backend says they come in key order already, as the
 * CPU's merge join of strictly increasing keys gives them).
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

const char *zb_join_how_name(zb_join_how how) {
  static const char *const names[ZB_JOIN_HOW_COUNT] = {"inner", "left", "right", "outer",
                                                       "semi",  "anti", "cross"};
  if ((int)how < 0 || how >= ZB_JOIN_HOW_COUNT) return "unknown";
  return names[how];
}

zb_status zb_join_how_from_name(const char *name, zb_join_how *out, zb_error *err) {
  for (int i = 0; name != NULL && i < ZB_JOIN_HOW_COUNT; i++) {
    if (strcmp(name, zb_join_how_name((zb_join_how)i)) == 0) {
      *out = (zb_join_how)i;
      return ZB_OK;
    }
  }
  return zb_error_set(err, ZB_EINVAL,
                      "join how must be one of inner, left, right, outer, semi, anti, cross "
                      "(got '%s')",
                      name == NULL ? "(null)" : name);
}

/* ---- key type preparation ---------------------------------------------------- */

/* c (uint64) with values above INT64_MAX turned into nulls (they equal no
 * signed value); a device column is masked on a host copy and moved back. */
static zb_status mask_big_uint64(const zb_column *c, zb_column **out, zb_error *err) {
  if (c->device.kind != ZB_DEVICE_CPU) {
    zb_column *h = NULL, *m = NULL;
    zb_status st = zb_column_to_device(c, ZB_CPU, &h, err);
    if (st == ZB_OK) st = mask_big_uint64(h, &m, err);
    if (st == ZB_OK) st = zb_column_to_device(m, c->device, out, err);
    zb_column_release(h);
    zb_column_release(m);
    return st;
  }
  zb_column *o = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(ZB_UINT64, c->length, true, 0, &o, err));
  const uint64_t *v = (const uint64_t *)c->data->data + c->offset;
  uint64_t *w = (uint64_t *)o->data->data;
  uint8_t *bits = (uint8_t *)o->validity->data;
  for (int64_t i = 0; i < c->length; i++) {
    w[i] = v[i];
    if (v[i] > (uint64_t)INT64_MAX || !zb_column_is_valid(c, i)) zb_bit_set(bits, i, false);
  }
  zb_column_recount_nulls(o);
  *out = o;
  return ZB_OK;
}

static zb_status cast_to(const zb_column *c, zb_type_id t, zb_time_unit unit, zb_column **out,
                         zb_error *err) {
  return zb_column_cast(c, t, unit, out, err);
}

/* Two categoricals with different dictionaries re-coded onto one shared
 * dictionary (their concatenation unifies them; each side is a slice of
 * it), so keys compare by code: a pass over the codes instead of turning
 * every row into a string.  Device columns are concatenated on the host
 * and the result moved back before slicing, so both share one dictionary
 * there too. */
static zb_status share_dictionary(const zb_column *a, const zb_column *b, zb_column **pa,
                                  zb_column **pb, zb_error *err) {
  zb_column *both = NULL, *parts[2] = {(zb_column *)a, (zb_column *)b};
  zb_column *ha = NULL, *hb = NULL;
  zb_status st = ZB_OK;
  if (a->device.kind != ZB_DEVICE_CPU) {
    st = zb_column_to_device(a, ZB_CPU, &ha, err);
    if (st == ZB_OK) st = zb_column_to_device(b, ZB_CPU, &hb, err);
    parts[0] = ha;
    parts[1] = hb;
  }
  if (st == ZB_OK) st = zb_column_concat(parts, 2, &both, err);
  zb_column_release(ha);
  zb_column_release(hb);
  if (st == ZB_OK && a->device.kind != ZB_DEVICE_CPU) {
    zb_column *d = NULL;
    st = zb_column_to_device(both, a->device, &d, err);
    zb_column_release(both);
    both = d;
  }
  if (st != ZB_OK) return st;
  st = zb_column_slice(both, 0, a->length, pa, err);
  if (st == ZB_OK) st = zb_column_slice(both, a->length, b->length, pb, err);
  zb_column_release(both);
  return st;
}

/* n rows of `like`'s type (its categories too), every one null: a gather at
 * null positions. */
static zb_status nulls_like(const zb_column *like, int64_t n, zb_column **out, zb_error *err) {
  zb_column *pos = NULL, *moved = NULL;
  ZB_RETURN_NOT_OK(zb_column_new(ZB_INT64, n, true, 0, &pos, err));
  if (n > 0) {
    memset(pos->data->data, 0, (size_t)n * sizeof(int64_t));
    memset(pos->validity->data, 0, (size_t)((n + 7) / 8));
  }
  zb_column_recount_nulls(pos);
  zb_status st = ZB_OK;
  if (!zb_device_equal(pos->device, like->device))
    st = zb_column_to_device(pos, like->device, &moved, err);
  if (st == ZB_OK) st = zb_column_take(like, moved != NULL ? moved : pos, out, err);
  zb_column_release(moved);
  zb_column_release(pos);
  return st;
}

/* A categorical without categories holds no value: it meets a key of any
 * type (as pandas merges it), as nulls of that type. */
static bool no_categories(const zb_column *c) {
  return c->type == ZB_CATEGORICAL && c->dictionary != NULL && c->dictionary->length == 0;
}

/* New references in *pa / *pb to a and b, or to converted copies, such that
 * the hash identity compares them directly. */
static zb_status prepare_pair(const zb_column *a, const zb_column *b, const char *an,
                              const char *bn, zb_column **pa, zb_column **pb, zb_error *err) {
  if (no_categories(a) != no_categories(b)) {
    const zb_column *empty = no_categories(a) ? a : b, *other = no_categories(a) ? b : a;
    zb_column *nulls = NULL;
    ZB_RETURN_NOT_OK(nulls_like(other, empty->length, &nulls, err));
    zb_status st = empty == a ? prepare_pair(nulls, b, an, bn, pa, pb, err)
                              : prepare_pair(a, nulls, an, bn, pa, pb, err);
    zb_column_release(nulls);
    return st;
  }
  if (zb__cat_valued(a) || zb__cat_valued(b)) {
    /* categories that are not strings: one dictionary when both share a
     * type (codes compare), else by their values */
    bool same = a->type == ZB_CATEGORICAL && b->type == ZB_CATEGORICAL &&
                a->dictionary->type == b->dictionary->type &&
                a->dictionary->unit == b->dictionary->unit;
    if (same) {
      if (a->dictionary == b->dictionary) {
        *pa = zb_column_retain((zb_column *)a);
        *pb = zb_column_retain((zb_column *)b);
        return ZB_OK;
      }
      return share_dictionary(a, b, pa, pb, err);
    }
    zb_column *da = NULL, *db = NULL;
    zb_status st = zb__decode_valued(a, &da, err);
    if (st == ZB_OK) st = zb__decode_valued(b, &db, err);
    if (st == ZB_OK) st = prepare_pair(da, db, an, bn, pa, pb, err);
    zb_column_release(da);
    zb_column_release(db);
    return st;
  }
  zb_type_id ta = a->type, tb = b->type;
  bool sa = ta == ZB_STRING || ta == ZB_CATEGORICAL;
  bool sb = tb == ZB_STRING || tb == ZB_CATEGORICAL;
  zb_status st = ZB_OK;
  *pa = NULL;
  *pb = NULL;
  if (zb_type_is_integer(ta) && zb_type_is_integer(tb)) {
    if (ta == ZB_UINT64 && zb_type_is_signed(tb)) st = mask_big_uint64(a, pa, err);
    if (st == ZB_OK && tb == ZB_UINT64 && zb_type_is_signed(ta))
      st = mask_big_uint64(b, pb, err);
  } else if (ta != tb && (zb_type_is_integer(ta) || zb_type_is_float(ta)) &&
             (zb_type_is_integer(tb) || zb_type_is_float(tb))) {
    if (ta != ZB_FLOAT64) st = cast_to(a, ZB_FLOAT64, ZB_SECOND, pa, err);
    if (st == ZB_OK && tb != ZB_FLOAT64) st = cast_to(b, ZB_FLOAT64, ZB_SECOND, pb, err);
  } else if (ta == ZB_CATEGORICAL && tb == ZB_CATEGORICAL) {
    if (a->dictionary != b->dictionary) st = share_dictionary(a, b, pa, pb, err);
  } else if (sa && sb) {
    if (ta == ZB_CATEGORICAL) st = cast_to(a, ZB_STRING, ZB_SECOND, pa, err);
    if (st == ZB_OK && tb == ZB_CATEGORICAL) st = cast_to(b, ZB_STRING, ZB_SECOND, pb, err);
  } else if (ta == tb && (ta == ZB_TIMESTAMP || ta == ZB_DURATION)) {
    if (a->unit < b->unit) st = cast_to(a, ta, b->unit, pa, err);
    if (b->unit < a->unit) st = cast_to(b, ta, a->unit, pb, err);
  } else if (ta != tb) {
    return zb_error_set(err, ZB_ETYPE,
                        "join keys '%s' (%s) and '%s' (%s) have incompatible types", an,
                        zb_type_name(ta), bn, zb_type_name(tb));
  }
  if (st != ZB_OK) {
    zb_column_release(*pa);
    *pa = NULL;
    return st;
  }
  if (*pa == NULL) *pa = zb_column_retain((zb_column *)a);
  if (*pb == NULL) *pb = zb_column_retain((zb_column *)b);
  return ZB_OK;
}

/* ---- sorting by the coalesced keys ---------------------------------------------- */

/* Permute *li / *ri (ri may be NULL) so the rows are stably sorted by the
 * join keys: lk[i] taken by li where li is valid, else rk[i] taken by ri. */
static zb_status sort_by_keys(zb_column *const *lk, zb_column *const *rk, int64_t n_keys,
                              zb_column **li, zb_column **ri, zb_error *err) {
  zb_status st = ZB_OK;
  zb_column **keys = (zb_column **)zb_calloc((size_t)n_keys, sizeof(zb_column *));
  char **names = (char **)zb_calloc((size_t)n_keys, sizeof(char *));
  char *name_buf = (char *)zb_malloc((size_t)n_keys * 24);
  int64_t *kidx = (int64_t *)zb_malloc((size_t)n_keys * sizeof(int64_t));
  zb_column *cond = NULL, *perm = NULL, *nl = NULL, *nr = NULL;
  zb_table *t = NULL;
  if (keys == NULL || names == NULL || name_buf == NULL || kidx == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory sorting a join");
    goto done;
  }
  bool coalesce = (*li)->null_count > 0 && *ri != NULL;
  if (coalesce) st = zb_column_notnull(*li, &cond, err);
  for (int64_t i = 0; st == ZB_OK && i < n_keys; i++) {
    kidx[i] = i;
    names[i] = name_buf + 24 * i;
    snprintf(names[i], 24, "k%lld", (long long)i);
    zb_column *a = NULL, *b = NULL;
    st = zb_column_take(lk[i], *li, &a, err);
    if (st == ZB_OK && coalesce) {
      st = zb_column_take(rk[i], *ri, &b, err);
      if (st == ZB_OK) st = zb_column_where(a, cond, false, b, &keys[i], err);
      zb_column_release(a);
      zb_column_release(b);
    } else {
      keys[i] = a;
    }
  }
  if (st == ZB_OK)
    st = zb_table_make(n_keys, keys, (const char *const *)names, &t, err);
  if (st == ZB_OK) st = zb_table_sort_indices(t, n_keys, kidx, NULL, false, &perm, err);
  if (st != ZB_OK) goto done;
  st = zb_column_take(*li, perm, &nl, err);
  if (st == ZB_OK && *ri != NULL) st = zb_column_take(*ri, perm, &nr, err);
  if (st == ZB_OK) {
    zb_column_release(*li);
    *li = nl;
    nl = NULL;
    if (*ri != NULL) {
      zb_column_release(*ri);
      *ri = nr;
      nr = NULL;
    }
  }
done:
  if (keys != NULL)
    for (int64_t i = 0; i < n_keys; i++) zb_column_release(keys[i]);
  zb_free(keys);
  zb_free(names);
  zb_free(name_buf);
  zb_free(kidx);
  zb_column_release(cond);
  zb_column_release(perm);
  zb_column_release(nl);
  zb_column_release(nr);
  zb_table_release(t);
  return st;
}

/* ---- entry point ------------------------------------------------------------------- */

zb_status zb_table_join_indices(const zb_table *left, const zb_table *right, int64_t n_keys,
                                const int64_t *left_keys, const int64_t *right_keys,
                                zb_join_how how, bool sort, bool nulls_match,
                                zb_column **left_idx, zb_column **right_idx, zb_error *err) {
  if (left_idx != NULL) *left_idx = NULL;
  if (right_idx != NULL) *right_idx = NULL;
  if (left == NULL || right == NULL || left_idx == NULL || right_idx == NULL)
    return zb_error_set(err, ZB_EINVAL, "join: NULL argument");
  if ((int)how < 0 || how >= ZB_JOIN_HOW_COUNT)
    return zb_error_set(err, ZB_EINVAL, "join: unknown join kind %d", (int)how);
  if (how == ZB_JOIN_CROSS && n_keys != 0)
    return zb_error_set(err, ZB_EINVAL, "a cross join takes no keys (got %lld)",
                        (long long)n_keys);
  if (how != ZB_JOIN_CROSS && n_keys < 1)
    return zb_error_set(err, ZB_EINVAL, "a %s join needs at least one key column pair",
                        zb_join_how_name(how));
  if (n_keys > 0 && (left_keys == NULL || right_keys == NULL))
    return zb_error_set(err, ZB_EINVAL, "join: NULL key indices");
  for (int64_t i = 0; i < n_keys; i++) {
    if (left_keys[i] < 0 || left_keys[i] >= left->num_columns)
      return zb_error_set(err, ZB_EINDEX, "join: left key index %lld out of range (%lld columns)",
                          (long long)left_keys[i], (long long)left->num_columns);
    if (right_keys[i] < 0 || right_keys[i] >= right->num_columns)
      return zb_error_set(err, ZB_EINDEX,
                          "join: right key index %lld out of range (%lld columns)",
                          (long long)right_keys[i], (long long)right->num_columns);
  }
  zb_device dev = zb_table_device(left);
  if (left->num_columns > 0 && right->num_columns > 0 &&
      !zb_device_equal(dev, zb_table_device(right)))
    return zb_error_set(err, ZB_EINVAL, "join: the tables live on different devices");
  if (left->num_columns == 0) dev = zb_table_device(right);
  const zb_backend *be = zb__backend_for(dev.kind);
  ZB_PROFILE_OP("join", be, ZB__OP_JOIN, dev, left->num_rows + right->num_rows);

  zb_status st = ZB_OK;
  zb_column **lk = (zb_column **)zb_calloc((size_t)ZB_MAX(n_keys, 1), sizeof(zb_column *));
  zb_column **rk = (zb_column **)zb_calloc((size_t)ZB_MAX(n_keys, 1), sizeof(zb_column *));
  zb_column *li = NULL, *ri = NULL;
  bool in_order = false; /* the backend gave the pairs in key order already */
  if (lk == NULL || rk == NULL) {
    st = zb_error_set(err, ZB_ENOMEM, "out of host memory (join keys)");
    goto done;
  }
  for (int64_t i = 0; st == ZB_OK && i < n_keys; i++)
    st = prepare_pair(left->columns[left_keys[i]], right->columns[right_keys[i]],
                      left->names[left_keys[i]], right->names[right_keys[i]], &lk[i], &rk[i],
                      err);
  if (st == ZB_OK) {
    zb__call c = {.op = ZB__OP_JOIN, .variant = (int32_t)how, .spanned = true};
    c.keys[0] = (const zb_column *const *)lk;
    c.keys[1] = (const zb_column *const *)rk;
    c.p.join.n_keys = n_keys;
    c.p.join.n_left = left->num_rows;
    c.p.join.n_right = right->num_rows;
    c.p.join.nulls_match = nulls_match;
    bool native = zb__backend_supports(be, &c);
    ZB_PROFILE_SUPPORTED(native);
    st = zb__dispatch(dev, &c, err);
    if (native && c.fell_back) ZB_PROFILE_DECLINED();
    li = c.out[0];
    ri = c.out[1];
    in_order = c.out_count == 1;
  }
  if (st != ZB_OK) goto done;
  if ((sort || how == ZB_JOIN_OUTER) && how != ZB_JOIN_CROSS && li->length > 1 && !in_order)
    st = sort_by_keys(lk, rk, n_keys, &li, &ri, err);
done:
  if (lk != NULL)
    for (int64_t i = 0; i < n_keys; i++) zb_column_release(lk[i]);
  if (rk != NULL)
    for (int64_t i = 0; i < n_keys; i++) zb_column_release(rk[i]);
  zb_free(lk);
  zb_free(rk);
  if (st != ZB_OK) {
    zb_column_release(li);
    zb_column_release(ri);
    return st;
  }
  *left_idx = li;
  *right_idx = ri;
  return ZB_OK;
}
