/*
 * test_strings.c -- unit tests for the string, date/time and elementwise
 * extra operations of zambezi/compute.h (zb_column_str, str_cat, str_join,
 * dt_field, date_diff, clip, round, between, where).  Results are checked
 * row by row against oracles written here the slow, obvious way (string
 * operations on arrays of decoded code points; calendar fields by stepping
 * through years and months), on random data with nulls, multi-byte UTF-8
 * and sliced columns, at several lengths and with 1 and 3 threads; failure
 * paths are checked with the allocator's fault injection.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"

static uint64_t rng(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static const int64_t k_lens[] = {0, 1, 2, 1000, 100001};
#define N_LENS 5

/* ---- UTF-8 oracle helpers -------------------------------------------------- */

static int encode(uint32_t c, char *o) {
  if (c < 0x80) { o[0] = (char)c; return 1; }
  if (c < 0x800) { o[0] = (char)(0xC0 | (c >> 6)); o[1] = (char)(0x80 | (c & 0x3F)); return 2; }
  if (c < 0x10000) {
    o[0] = (char)(0xE0 | (c >> 12)); o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
    o[2] = (char)(0x80 | (c & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (c >> 18)); o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((c >> 6) & 0x3F)); o[3] = (char)(0x80 | (c & 0x3F));
  return 4;
}

/* Decode p[0, len) into cps (capacity len); returns the count. */
static int64_t decode(const char *p, int64_t len, uint32_t *cps) {
  int64_t n = 0;
  for (int64_t i = 0; i < len;) {
    unsigned char b = (unsigned char)p[i];
    int w = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    uint32_t c = w == 1 ? b : w == 2 ? (b & 0x1Fu) : w == 3 ? (b & 0x0Fu) : (b & 0x07u);
    for (int k = 1; k < w; k++) c = (c << 6) | ((unsigned char)p[i + k] & 0x3Fu);
    cps[n++] = c;
    i += w;
  }
  return n;
}

/* Non-ASCII letters whose case maps to another UTF-8 width: ı -> I (2 -> 1
 * bytes), ɐ -> Ɐ (2 -> 3), ß -> ẞ (2 -> 3), İ -> i (2 -> 1). */
static const uint32_t k_pool[] = {'a',   'b',    'c',     'A',   'B',    'Z',   ' ',   ' ',
                                  '\t',  'x',    0xE9,    0x20AC, 0x1F600, 0xA0, 0x3000, 'b',
                                  'a',   '\n',   0x131,   0x250, 0x2C6F, 0xDF,  0x3A3, 0x3C3,
                                  0x130};
#define POOL (sizeof k_pool / sizeof k_pool[0])

/* A string column of n random rows (about 1 in 7 null) from the pool, then
 * sliced by `off` rows to exercise offsets. */
static zb_column *random_strings(int64_t n, int64_t off, uint64_t seed) {
  zb_error err;
  uint64_t s = seed;
  int64_t total = n + off;
  char *buf = (char *)malloc((size_t)(total * 8 * 4 + 1));
  int64_t *offs = (int64_t *)malloc((size_t)(total + 1) * sizeof(int64_t));
  uint8_t *valid = (uint8_t *)malloc((size_t)total + 1);
  int64_t pos = 0;
  offs[0] = 0;
  for (int64_t i = 0; i < total; i++) {
    valid[i] = rng(&s) % 7 != 0;
    int len = (int)(rng(&s) % 9);
    for (int k = 0; valid[i] && k < len; k++) pos += encode(k_pool[rng(&s) % POOL], buf + pos);
    offs[i + 1] = pos;
  }
  zb_column *c = NULL, *sl = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_STRING, total, true, pos, &c, &err), &err);
  memcpy(c->data->data, offs, (size_t)(total + 1) * sizeof(int64_t));
  if (pos > 0) memcpy(c->chars->data, buf, (size_t)pos);
  for (int64_t i = 0; i < total; i++) zb_bit_set((uint8_t *)c->validity->data, i, valid[i]);
  zb_column_recount_nulls(c);
  ZB_CHECK_OK(zb_column_slice(c, off, n, &sl, &err), &err);
  zb_column_release(c);
  free(buf);
  free(offs);
  free(valid);
  return sl;
}

static const char *row_str(const zb_column *c, int64_t i, int64_t *len) {
  const int64_t *o = (const int64_t *)c->data->data + c->offset + i;
  *len = o[1] - o[0];
  return (const char *)c->chars->data + o[0];
}

static bool py_space(uint32_t c) {
  return (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

/* The case of the pool's letters, by hand (Unicode simple case mapping). */
static uint32_t upper_of(uint32_t c) {
  if (c >= 'a' && c <= 'z') return c - 32;
  switch (c) {
    case 0xE9: return 0xC9;    /* é -> É */
    case 0x131: return 'I';    /* dotless ı */
    case 0x250: return 0x2C6F; /* ɐ -> Ɐ */
    case 0xDF: return 0x1E9E;  /* ß -> ẞ */
    case 0x3C3: return 0x3A3;  /* σ -> Σ */
    default: return c;
  }
}
static uint32_t lower_of(uint32_t c) {
  if (c >= 'A' && c <= 'Z') return c + 32;
  switch (c) {
    case 0x2C6F: return 0x250; /* Ɐ -> ɐ */
    case 0x3A3: return 0x3C3;  /* Σ -> σ */
    case 0x130: return 'i';    /* İ -> i */
    default: return c;
  }
}

/* Expected output of op on one row, as UTF-8 into out (returns bytes), or
 * as an integer in *iv for len / the bool tests. */
static int64_t oracle(const zb_str_args *a, const char *p, int64_t len, char *out, int64_t *iv) {
  uint32_t *cp = (uint32_t *)malloc((size_t)(len + 1) * sizeof(uint32_t));
  uint32_t *pc = (uint32_t *)malloc((size_t)(a->pat_len + 1) * sizeof(uint32_t));
  int64_t n = decode(p, len, cp), m = a->pat ? decode(a->pat, a->pat_len, pc) : 0, o = 0;
  switch (a->op) {
    case ZB_STR_LEN: *iv = n; break;
    case ZB_STR_CONTAINS:
    case ZB_STR_STARTSWITH:
    case ZB_STR_ENDSWITH: {
      *iv = 0;
      for (int64_t s = 0; s + m <= n && !*iv; s++) {
        if (a->op == ZB_STR_STARTSWITH && s != 0) break;
        if (a->op == ZB_STR_ENDSWITH && s != n - m) continue;
        bool eq = true;
        for (int64_t k = 0; k < m && eq; k++) eq = cp[s + k] == pc[k];
        *iv = eq;
      }
      break;
    }
    case ZB_STR_LOWER:
    case ZB_STR_UPPER:
      for (int64_t k = 0; k < n; k++)
        o += encode(a->op == ZB_STR_LOWER ? lower_of(cp[k]) : upper_of(cp[k]), out + o);
      break;
    case ZB_STR_STRIP:
    case ZB_STR_LSTRIP:
    case ZB_STR_RSTRIP: {
      int64_t b = 0, e = n;
#define MEMBER(c) (a->pat == NULL ? py_space(c) : ({ bool f_ = false; for (int64_t q_ = 0; q_ < m; q_++) f_ |= pc[q_] == (c); f_; }))
      if (a->op != ZB_STR_RSTRIP) while (b < e && MEMBER(cp[b])) b++;
      if (a->op != ZB_STR_LSTRIP) while (e > b && MEMBER(cp[e - 1])) e--;
#undef MEMBER
      for (int64_t k = b; k < e; k++) o += encode(cp[k], out + o);
      break;
    }
    case ZB_STR_SLICE: {
      /* Python semantics, by brute force: every index k in order. */
      int64_t step = a->step, start, stop;
      if (step > 0) {
        start = !a->has_start ? 0 : a->start < 0 ? a->start + n : a->start;
        stop = !a->has_stop ? n : a->stop < 0 ? a->stop + n : a->stop;
        if (start < 0) start = 0;
        for (int64_t k = start; k < stop && k < n; k += step) o += encode(cp[k], out + o);
      } else {
        start = !a->has_start ? n - 1 : a->start < 0 ? a->start + n : a->start;
        stop = !a->has_stop ? -1 : a->stop < 0 ? a->stop + n : a->stop;
        if (a->has_stop && a->stop < 0 && stop < 0) stop = -1;
        if (start > n - 1) start = n - 1;
        for (int64_t k = start; k > stop && k >= 0; k += step) o += encode(cp[k], out + o);
      }
      break;
    }
    case ZB_STR_REPLACE: {
      int64_t done = 0, k = 0;
      if (m == 0) {
        for (k = 0; k <= n; k++) {
          if (a->n < 0 || done < a->n) {
            memcpy(out + o, a->repl, (size_t)a->repl_len);
            o += a->repl_len;
            done++;
          }
          if (k < n) o += encode(cp[k], out + o);
        }
        break;
      }
      while (k < n) {
        bool hit = (a->n < 0 || done < a->n) && k + m <= n;
        for (int64_t q = 0; hit && q < m; q++) hit = cp[k + q] == pc[q];
        if (hit) {
          memcpy(out + o, a->repl, (size_t)a->repl_len);
          o += a->repl_len;
          done++;
          k += m;
        } else {
          o += encode(cp[k++], out + o);
        }
      }
      break;
    }
    default: break;
  }
  free(cp);
  free(pc);
  return o;
}

static void check_str_op(const zb_column *c, const zb_str_args *a) {
  zb_error err;
  zb_column *r = NULL;
  ZB_CHECK_OK(zb_column_str(c, a, &r, &err), &err);
  if (r == NULL) return;
  ZB_CHECK_EQ_INT(r->length, c->length);
  ZB_CHECK_EQ_INT(r->null_count, c->null_count);
  char *exp = (char *)malloc(4096);
  int bad = 0;
  for (int64_t i = 0; i < c->length && bad < 3; i++) {
    bool v = zb_column_is_valid(c, i);
    if (zb_column_is_valid(r, i) != v) {
      ZB_CHECK(!"validity differs");
      bad++;
      continue;
    }
    if (!v) continue;
    int64_t len, iv = 0;
    const char *p = row_str(c, i, &len);
    int64_t el = oracle(a, p, len, exp, &iv);
    if (a->op == ZB_STR_LEN) {
      if (((const int64_t *)r->data->data)[r->offset + i] != iv) bad++;
    } else if (r->type == ZB_BOOL) {
      if (zb_bit_get((const uint8_t *)r->data->data, r->offset + i) != (iv != 0)) bad++;
    } else {
      int64_t gl;
      const char *g = row_str(r, i, &gl);
      if (gl != el || (el > 0 && memcmp(g, exp, (size_t)el) != 0)) bad++;
    }
    if (bad) zb_test_fail(__FILE__, __LINE__, "str.%s row %lld ('%.*s') differs",
                          zb_str_op_name(a->op), (long long)i, (int)len, p);
  }
  free(exp);
  zb_column_release(r);
}

static zb_str_args args_of(zb_str_op op, const char *pat) {
  zb_str_args a;
  memset(&a, 0, sizeof a);
  a.op = op;
  a.pat = pat;
  a.pat_len = pat ? (int64_t)strlen(pat) : 0;
  a.step = 1;
  a.n = -1;
  return a;
}

/* Case mapping copies bytes that do not form a character as they are: a
 * lone continuation byte, a sequence cut short at the end of the row, an
 * overlong form, a lead byte past U+10FFFF -- and maps what is around them. */
ZB_TEST(test_strings_case_of_malformed_utf8) {
  zb_error err;
  static const char *const rows[5] = {"\x80" "a", "b\xc3", "\xc0\xaf" "c", "\xf5\x80\x80\x80" "d",
                                      "\xc3\xa9\xc4\xb1"};
  static const char *const up[5] = {"\x80" "A", "B\xc3", "\xc0\xaf" "C", "\xf5\x80\x80\x80" "D",
                                    "\xc3\x89" "I"};
  int64_t total = 0;
  for (int i = 0; i < 5; i++) total += (int64_t)strlen(rows[i]);
  zb_column *c = NULL, *o = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_STRING, 5, false, total, &c, &err), &err);
  if (c == NULL) return;
  int64_t *offs = (int64_t *)c->data->data, pos = 0;
  offs[0] = 0;
  for (int i = 0; i < 5; i++) {
    memcpy((char *)c->chars->data + pos, rows[i], strlen(rows[i]));
    pos += (int64_t)strlen(rows[i]);
    offs[i + 1] = pos;
  }
  zb_str_args a = args_of(ZB_STR_UPPER, NULL);
  ZB_CHECK_OK(zb_column_str(c, &a, &o, &err), &err);
  for (int i = 0; o != NULL && i < 5; i++) {
    const int64_t *oo = (const int64_t *)o->data->data + o->offset;
    int64_t len = oo[i + 1] - oo[i];
    ZB_CHECK(len == (int64_t)strlen(up[i]) &&
             memcmp((const char *)o->chars->data + oo[i], up[i], (size_t)len) == 0);
  }
  zb_column_release(o);
  zb_column_release(c);
}

ZB_TEST(test_strings_ops_vs_oracle) {
  zb_error err;
  int threads[2] = {1, 3};
  for (int t = 0; t < 2; t++) {
    ZB_CHECK_OK(zb_set_num_threads(threads[t], &err), &err);
    for (int li = 0; li < N_LENS; li++) {
      zb_column *c = random_strings(k_lens[li], li % 3, 1000 + (uint64_t)li);
      zb_str_args a;
      a = args_of(ZB_STR_LEN, NULL); check_str_op(c, &a);
      a = args_of(ZB_STR_CONTAINS, "ab"); check_str_op(c, &a);
      a = args_of(ZB_STR_CONTAINS, "\xe2\x82\xac"); check_str_op(c, &a);
      a = args_of(ZB_STR_CONTAINS, ""); check_str_op(c, &a);
      a = args_of(ZB_STR_STARTSWITH, "a"); check_str_op(c, &a);
      a = args_of(ZB_STR_ENDSWITH, "\xc3\xa9"); check_str_op(c, &a);
      a = args_of(ZB_STR_LOWER, NULL); check_str_op(c, &a);
      a = args_of(ZB_STR_UPPER, NULL); check_str_op(c, &a);
      a = args_of(ZB_STR_STRIP, NULL); check_str_op(c, &a);
      a = args_of(ZB_STR_LSTRIP, NULL); check_str_op(c, &a);
      a = args_of(ZB_STR_RSTRIP, NULL); check_str_op(c, &a);
      a = args_of(ZB_STR_STRIP, "a\xf0\x9f\x98\x80 "); check_str_op(c, &a);
      a = args_of(ZB_STR_REPLACE, "a"); a.repl = "XY"; a.repl_len = 2; check_str_op(c, &a);
      a.n = 1; check_str_op(c, &a);
      a = args_of(ZB_STR_REPLACE, "ba"); a.repl = ""; a.repl_len = 0; check_str_op(c, &a);
      a = args_of(ZB_STR_REPLACE, ""); a.repl = "-"; a.repl_len = 1; a.n = 2; check_str_op(c, &a);
      a.n = -1; check_str_op(c, &a);
      static const int64_t sl[][5] = {
          /* has_start, start, has_stop, stop, step */
          {1, 1, 1, 4, 1}, {1, -3, 0, 0, 1}, {0, 0, 1, -1, 1}, {0, 0, 0, 0, 2},
          {0, 0, 0, 0, -1}, {1, 5, 1, 1, -2}, {1, -2, 1, -8, -1}, {1, 2, 1, 100, 3},
          {1, -100, 1, 100, 1}, {1, 100, 0, 0, -1}};
      for (size_t k = 0; k < sizeof sl / sizeof sl[0]; k++) {
        a = args_of(ZB_STR_SLICE, NULL);
        a.has_start = sl[k][0];
        a.start = sl[k][1];
        a.has_stop = sl[k][2];
        a.stop = sl[k][3];
        a.step = sl[k][4];
        check_str_op(c, &a);
      }
      zb_column_release(c);
    }
  }
  ZB_CHECK_OK(zb_set_num_threads(zb_available_cores(), &err), &err);
}

ZB_TEST(test_strings_categorical_and_errors) {
  zb_error err;
  zb_column *c = random_strings(1000, 0, 7), *cat = NULL, *r1 = NULL, *r2 = NULL, *dec = NULL;
  ZB_CHECK_OK(zb_column_cast(c, ZB_CATEGORICAL, ZB_MICRO, &cat, &err), &err);
  zb_str_args ops[3] = {args_of(ZB_STR_UPPER, NULL), args_of(ZB_STR_LEN, NULL),
                        args_of(ZB_STR_CONTAINS, "b")};
  for (int k = 0; k < 3; k++) {
    ZB_CHECK_OK(zb_column_str(cat, &ops[k], &r1, &err), &err);
    ZB_CHECK_OK(zb_column_str(c, &ops[k], &r2, &err), &err);
    zb_column *eq = NULL;
    ZB_CHECK_EQ_INT(r1->type, r2->type);
    ZB_CHECK_EQ_INT(r1->null_count, r2->null_count);
    ZB_CHECK_OK(zb_column_binary(ZB_OP_EQ, r1, r2, &eq, &err), &err);
    for (int64_t i = 0; i < eq->length; i++)
      if (zb_column_is_valid(eq, i)) ZB_CHECK(zb_bit_get((const uint8_t *)eq->data->data, eq->offset + i));
    zb_column_release(eq);
    zb_column_release(r1);
    zb_column_release(r2);
  }
  (void)dec;
  /* Errors: wrong type, step 0, missing pattern. */
  zb_column *ints = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT64, 3, false, 0, &ints, &err), &err);
  zb_str_args a = args_of(ZB_STR_LEN, NULL);
  ZB_CHECK_EQ_INT(zb_column_str(ints, &a, &r1, &err), ZB_ETYPE);
  ZB_CHECK(r1 == NULL);
  a = args_of(ZB_STR_SLICE, NULL);
  a.step = 0;
  ZB_CHECK_EQ_INT(zb_column_str(c, &a, &r1, &err), ZB_EINVAL);
  a = args_of(ZB_STR_CONTAINS, NULL);
  ZB_CHECK_EQ_INT(zb_column_str(c, &a, &r1, &err), ZB_EINVAL);
  /* Fault injection: every allocation failing in turn leaves nothing behind. */
  zb_str_args fi[3] = {args_of(ZB_STR_REPLACE, "a"), args_of(ZB_STR_LEN, NULL),
                       args_of(ZB_STR_UPPER, NULL)};
  fi[0].repl = "zz";
  fi[0].repl_len = 2;
  for (int k = 0; k < 3; k++) {
    for (int64_t nth = 1; nth < 40; nth++) {
      zb_alloc_fail_after(nth);
      zb_status st = zb_column_str(cat, &fi[k], &r1, &err);
      zb_alloc_fail_after(0);
      if (st == ZB_OK) {
        zb_column_release(r1);
        break;
      }
      ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
      ZB_CHECK(r1 == NULL);
    }
  }
  zb_column_release(ints);
  zb_column_release(cat);
  zb_column_release(c);
}

ZB_TEST(test_strings_cat_and_join) {
  zb_error err;
  for (int t = 1; t <= 3; t += 2) {
    ZB_CHECK_OK(zb_set_num_threads(t, &err), &err);
    for (int li = 0; li < N_LENS; li++) {
      int64_t n = k_lens[li];
      zb_column *a = random_strings(n, 1, 11 + (uint64_t)li), *b = random_strings(n, 0, 99);
      zb_column *r = NULL, *rs = NULL, *rn = NULL;
      ZB_CHECK_OK(zb_column_str_cat(a, b, "--", 2, &r, &err), &err);
      ZB_CHECK_OK(zb_column_str_cat_scalar(a, "\xc3\xa9!", 3, true, ",", 1, &rs, &err), &err);
      ZB_CHECK_OK(zb_column_str_cat_scalar(a, NULL, 0, false, "", 0, &rn, &err), &err);
      ZB_CHECK_EQ_INT(rn->null_count, n);
      char buf[256];
      for (int64_t i = 0; i < n; i++) {
        bool v = zb_column_is_valid(a, i) && zb_column_is_valid(b, i);
        ZB_CHECK(zb_column_is_valid(r, i) == v);
        ZB_CHECK(zb_column_is_valid(rs, i) == zb_column_is_valid(a, i));
        int64_t la, lb, lr;
        const char *pa = row_str(a, i, &la), *pb = row_str(b, i, &lb), *pr;
        if (v) {
          memcpy(buf, pa, (size_t)la);
          memcpy(buf + la, "--", 2);
          memcpy(buf + la + 2, pb, (size_t)lb);
          pr = row_str(r, i, &lr);
          ZB_CHECK(lr == la + lb + 2 && memcmp(pr, buf, (size_t)lr) == 0);
        }
        if (zb_column_is_valid(a, i)) {
          pr = row_str(rs, i, &lr);
          ZB_CHECK(lr == la + 4 && memcmp(pr, "\xc3\xa9!,", 4) == 0 &&
                   memcmp(pr + 4, pa, (size_t)la) == 0);
        }
      }
      /* join: valid rows with sep */
      char *j = NULL;
      int64_t jl = 0, exp = 0, cnt = 0;
      ZB_CHECK_OK(zb_column_str_join(a, "|", 1, &j, &jl, &err), &err);
      for (int64_t i = 0; i < n; i++) {
        if (!zb_column_is_valid(a, i)) continue;
        int64_t la;
        const char *pa = row_str(a, i, &la);
        if (cnt++ > 0) {
          ZB_CHECK(exp < jl && j[exp] == '|');
          exp++;
        }
        ZB_CHECK(exp + la <= jl && memcmp(j + exp, pa, (size_t)la) == 0);
        exp += la;
      }
      ZB_CHECK_EQ_INT(exp, jl);
      zb_free(j);
      zb_column_release(a);
      zb_column_release(b);
      zb_column_release(r);
      zb_column_release(rs);
      zb_column_release(rn);
    }
  }
  ZB_CHECK_OK(zb_set_num_threads(zb_available_cores(), &err), &err);
}

/* ---- dates -------------------------------------------------------------------- */

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* Civil date of day z by stepping through years and months from 1970. */
static void slow_civil(int64_t z, int64_t *y, int *m, int *d, int *doy) {
  int64_t yy = 1970;
  while (z < 0) {
    yy--;
    z += leap(yy) ? 366 : 365;
  }
  while (z >= (leap(yy) ? 366 : 365)) {
    z -= leap(yy) ? 366 : 365;
    yy++;
  }
  *doy = (int)z + 1;
  static const int ml[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int mm = 0;
  while (z >= ml[mm] + (mm == 1 && leap(yy))) {
    z -= ml[mm] + (mm == 1 && leap(yy));
    mm++;
  }
  *y = yy;
  *m = mm + 1;
  *d = (int)z + 1;
}

static int64_t fdiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

ZB_TEST(test_strings_dt_fields) {
  zb_error err;
  static const int64_t per_sec[4] = {1, 1000, 1000000, 1000000000};
  uint64_t s = 5;
  for (int t = 1; t <= 3; t += 2) {
    ZB_CHECK_OK(zb_set_num_threads(t, &err), &err);
    for (int li = 0; li < N_LENS; li++) {
      int64_t n = k_lens[li];
      for (int kind = 0; kind < 5; kind++) { /* 0: date32; 1..4 timestamp s..ns */
        zb_column *c = NULL;
        zb_type_id ty = kind == 0 ? ZB_DATE32 : ZB_TIMESTAMP;
        ZB_CHECK_OK(zb_column_new(ty, n, true, 0, &c, &err), &err);
        if (kind > 0) ZB_CHECK_OK(zb_column_set_time(c, (zb_time_unit)(kind - 1), kind == 2 ? "UTC" : NULL, &err), &err);
        for (int64_t i = 0; i < n; i++) {
          int64_t day = (int64_t)(rng(&s) % 146000) - 73000; /* 1770 .. 2170 */
          if (i % 11 == 3) day = (int64_t)(rng(&s) % 3) - 1; /* around the epoch */
          if (kind == 0) {
            ((int32_t *)c->data->data)[i] = (int32_t)day;
          } else {
            int64_t sec = day * 86400 + (int64_t)(rng(&s) % 86400);
            ((int64_t *)c->data->data)[i] = sec * per_sec[kind - 1] + (int64_t)(rng(&s) % (uint64_t)per_sec[kind - 1]);
          }
          if (rng(&s) % 9 == 0) {
            zb_bit_set((uint8_t *)c->validity->data, i, false);
            /* pandas' NaT underneath some nulls: fields must not overflow on it */
            if (kind > 0 && i % 2 == 0) ((int64_t *)c->data->data)[i] = INT64_MIN;
          }
        }
        zb_column_recount_nulls(c);
        for (int f = 0; f < ZB_DT_FIELD_COUNT; f++) {
          zb_column *r = NULL;
          zb_status st = zb_column_dt_field(c, (zb_dt_field)f, &r, &err);
          if (kind == 0 && (f == ZB_DT_HOUR || f == ZB_DT_MINUTE || f == ZB_DT_SECOND ||
                            f == ZB_DT_MICROSECOND || f == ZB_DT_NANOSECOND)) {
            ZB_CHECK_EQ_INT(st, ZB_ETYPE);
            continue;
          }
          ZB_CHECK_OK(st, &err);
          if (r == NULL) continue;
          ZB_CHECK_EQ_INT(r->type, ZB_INT32);
          ZB_CHECK_EQ_INT(r->null_count, c->null_count);
          int bad = 0;
          for (int64_t i = 0; i < n && bad < 3; i++) {
            if (!zb_column_is_valid(c, i)) {
              if (zb_column_is_valid(r, i)) bad++;
              continue;
            }
            int64_t day, sod = 0, ns = 0; /* ns: nanoseconds within the second */
            if (kind == 0) {
              day = ((const int32_t *)c->data->data)[i];
            } else {
              int64_t v = ((const int64_t *)c->data->data)[i], per = per_sec[kind - 1];
              int64_t sec = fdiv(v, per);
              day = fdiv(sec, 86400);
              sod = sec - day * 86400;
              ns = (v - sec * per) * (1000000000 / per);
            }
            int64_t y;
            int m, d, doy;
            slow_civil(day, &y, &m, &d, &doy);
            int64_t dow = ((day % 7) + 7 + 3) % 7; /* 1970-01-01: Thursday */
            int64_t want[ZB_DT_FIELD_COUNT] = {y,   m,   d, sod / 3600, sod / 60 % 60, sod % 60,
                                               dow, doy, (m - 1) / 3 + 1, ns / 1000, ns % 1000};
            int32_t got = ((const int32_t *)r->data->data)[i];
            if (got != want[f]) {
              bad++;
              zb_test_fail(__FILE__, __LINE__, "dt.%s kind %d row %lld day %lld: %d != %lld",
                           zb_dt_field_name((zb_dt_field)f), kind, (long long)i, (long long)day,
                           got, (long long)want[f]);
            }
          }
          zb_column_release(r);
        }
        zb_column_release(c);
      }
    }
  }
  ZB_CHECK_OK(zb_set_num_threads(zb_available_cores(), &err), &err);
  /* Known dates: 2000-02-29 is day 11016, a Tuesday; 1900-03-01 is -25508. */
  zb_column *c = NULL, *r = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_DATE32, 2, false, 0, &c, &err), &err);
  ((int32_t *)c->data->data)[0] = 11016;
  ((int32_t *)c->data->data)[1] = -25508;
  ZB_CHECK_OK(zb_column_dt_field(c, ZB_DT_DAYOFWEEK, &r, &err), &err);
  ZB_CHECK_EQ_INT(((int32_t *)r->data->data)[0], 1);
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_dt_field(c, ZB_DT_DAYOFYEAR, &r, &err), &err);
  ZB_CHECK_EQ_INT(((int32_t *)r->data->data)[0], 60);
  ZB_CHECK_EQ_INT(((int32_t *)r->data->data)[1], 60); /* 1900 is not a leap year */
  zb_column_release(r);
  zb_column_release(c);
  /* Timezones: fixed offsets work, named zones are ZB_ENOTSUP. */
  ZB_CHECK_OK(zb_column_new(ZB_TIMESTAMP, 1, false, 0, &c, &err), &err);
  ((int64_t *)c->data->data)[0] = 23 * 3600; /* 1970-01-01 23:00 UTC */
  ZB_CHECK_OK(zb_column_set_time(c, ZB_SECOND, "+05:30", &err), &err);
  ZB_CHECK_OK(zb_column_dt_field(c, ZB_DT_HOUR, &r, &err), &err);
  ZB_CHECK_EQ_INT(((int32_t *)r->data->data)[0], 4);
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_dt_field(c, ZB_DT_DAY, &r, &err), &err);
  ZB_CHECK_EQ_INT(((int32_t *)r->data->data)[0], 2);
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_set_time(c, ZB_SECOND, "Europe/Paris", &err), &err);
  ZB_CHECK_EQ_INT(zb_column_dt_field(c, ZB_DT_HOUR, &r, &err), ZB_ENOTSUP);
  ZB_CHECK(strstr(err.message, "Europe/Paris") != NULL);
  zb_column_release(c);
}

ZB_TEST(test_strings_date_diff) {
  zb_error err;
  zb_column *a = NULL, *b = NULL, *r = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_DATE32, 3, true, 0, &a, &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_DATE32, 3, false, 0, &b, &err), &err);
  int32_t av[3] = {10, -5, 7}, bv[3] = {3, 20, 1};
  memcpy(a->data->data, av, sizeof av);
  memcpy(b->data->data, bv, sizeof bv);
  zb_bit_set((uint8_t *)a->validity->data, 2, false);
  zb_column_recount_nulls(a);
  ZB_CHECK_OK(zb_column_date_diff(a, b, &r, &err), &err);
  /* a duration in seconds (Arrow's unit for date32 - date32) */
  ZB_CHECK_EQ_INT(r->type, ZB_DURATION);
  ZB_CHECK_EQ_INT(r->unit, ZB_SECOND);
  ZB_CHECK_EQ_INT(((int64_t *)r->data->data)[0], 7 * 86400);
  ZB_CHECK_EQ_INT(((int64_t *)r->data->data)[1], -25 * 86400);
  ZB_CHECK(!zb_column_is_valid(r, 2));
  zb_column_release(r);
  zb_column_release(a);
  zb_column_release(b);
  /* timestamps of different units: the finer one */
  ZB_CHECK_OK(zb_column_new(ZB_TIMESTAMP, 1, false, 0, &a, &err), &err);
  ZB_CHECK_OK(zb_column_new(ZB_TIMESTAMP, 1, false, 0, &b, &err), &err);
  ZB_CHECK_OK(zb_column_set_time(a, ZB_SECOND, NULL, &err), &err);
  ZB_CHECK_OK(zb_column_set_time(b, ZB_MILLI, NULL, &err), &err);
  ((int64_t *)a->data->data)[0] = 10;
  ((int64_t *)b->data->data)[0] = 2500;
  ZB_CHECK_OK(zb_column_date_diff(a, b, &r, &err), &err);
  ZB_CHECK_EQ_INT(r->type, ZB_DURATION);
  ZB_CHECK_EQ_INT(r->unit, ZB_MILLI);
  ZB_CHECK_EQ_INT(((int64_t *)r->data->data)[0], 7500);
  zb_column_release(r);
  ZB_CHECK_OK(zb_column_set_time(b, ZB_MILLI, "UTC", &err), &err);
  ZB_CHECK_EQ_INT(zb_column_date_diff(a, b, &r, &err), ZB_ETYPE);
  zb_column_release(a);
  zb_column_release(b);
}

/* Time arithmetic past int64 (or onto INT64_MIN, pandas' NaT) is
 * ZB_EOVERFLOW, where the int64 kernels underneath wrap; a missing row's
 * value takes no part, and what fits is exact. */
ZB_TEST(test_time_arithmetic_overflow) {
  zb_error err;
  zb_column *ts = NULL, *span = NULL, *r = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_TIMESTAMP, 3, true, 0, &ts, &err), &err);
  ZB_CHECK_OK(zb_column_set_time(ts, ZB_NANO, NULL, &err), &err);
  int64_t tv[3] = {INT64_MAX - 10, 0, INT64_MIN + 1};
  memcpy(ts->data->data, tv, sizeof tv);
  ZB_CHECK_OK(zb_column_new(ZB_DURATION, 3, false, 0, &span, &err), &err);
  ZB_CHECK_OK(zb_column_set_time(span, ZB_NANO, NULL, &err), &err);
  int64_t dv[3] = {11, 5, -1};
  memcpy(span->data->data, dv, sizeof dv);
  /* row 0 passes INT64_MAX; row 2 lands on INT64_MIN */
  ZB_CHECK_EQ_INT(zb_column_binary(ZB_OP_ADD, ts, span, &r, &err), ZB_EOVERFLOW);
  ZB_CHECK(strstr(err.message, "Overflow in int64 addition") != NULL);
  ZB_CHECK(r == NULL);
  zb_bit_set((uint8_t *)ts->validity->data, 0, false);
  zb_column_recount_nulls(ts);
  ZB_CHECK_EQ_INT(zb_column_binary(ZB_OP_ADD, ts, span, &r, &err), ZB_EOVERFLOW);
  zb_bit_set((uint8_t *)ts->validity->data, 2, false);
  zb_column_recount_nulls(ts);
  ZB_CHECK_OK(zb_column_binary(ZB_OP_ADD, ts, span, &r, &err), &err);
  ZB_CHECK_EQ_INT(((int64_t *)r->data->data)[1], 5);
  zb_column_release(r);
  /* a timestamp scalar on either side of a subtraction */
  zb_bit_set((uint8_t *)ts->validity->data, 2, true);
  zb_column_recount_nulls(ts);
  zb_scalar far = {.type = ZB_TIMESTAMP, .v.i = INT64_MAX - 1};
  ZB_CHECK_EQ_INT(zb_column_binary_scalar(ZB_OP_SUB, ts, &far, false, &r, &err), ZB_EOVERFLOW);
  ZB_CHECK_EQ_INT(zb_column_binary_scalar(ZB_OP_SUB, ts, &far, true, &r, &err), ZB_EOVERFLOW);
  zb_scalar near = {.type = ZB_TIMESTAMP, .v.i = 7};
  ZB_CHECK_OK(zb_column_binary_scalar(ZB_OP_ADD, span, &near, false, &r, &err), &err);
  ZB_CHECK_EQ_INT(r->type, ZB_TIMESTAMP);
  ZB_CHECK_EQ_INT(((int64_t *)r->data->data)[2], 7 * 1000 - 1); /* the scalar in us */
  zb_column_release(r);
  zb_scalar edge = {.type = ZB_TIMESTAMP, .v.i = INT64_MAX - 5};
  ZB_CHECK_EQ_INT(zb_column_binary_scalar(ZB_OP_ADD, span, &edge, true, &r, &err), ZB_EOVERFLOW);
  /* a duration times an integer */
  zb_scalar big = {.type = ZB_INT64, .v.i = INT64_MAX / 4}, two = {.type = ZB_INT64, .v.i = 2};
  ZB_CHECK_EQ_INT(zb_column_binary_scalar(ZB_OP_MUL, span, &big, false, &r, &err), ZB_EOVERFLOW);
  ZB_CHECK(strstr(err.message, "multiplication") != NULL);
  ZB_CHECK_OK(zb_column_binary_scalar(ZB_OP_MUL, span, &two, true, &r, &err), &err);
  ZB_CHECK_EQ_INT(((int64_t *)r->data->data)[0], 22);
  ZB_CHECK_EQ_INT(((int64_t *)r->data->data)[2], -2);
  zb_column_release(r);
  zb_column_release(ts);
  zb_column_release(span);
}

/* ---- clip, round, between, where ------------------------------------------ */

static zb_column *random_f64(int64_t n, uint64_t seed, bool nulls) {
  zb_error err;
  zb_column *c = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_FLOAT64, n, true, 0, &c, &err), &err);
  uint64_t s = seed;
  for (int64_t i = 0; i < n; i++) {
    double v = ((double)(rng(&s) % 200001) - 100000) / 400.0; /* many exact halves */
    if (rng(&s) % 50 == 0) v = NAN;
    ((double *)c->data->data)[i] = v;
    if (nulls && rng(&s) % 8 == 0) zb_bit_set((uint8_t *)c->validity->data, i, false);
  }
  zb_column_recount_nulls(c);
  return c;
}

ZB_TEST(test_strings_clip_round) {
  zb_error err;
  for (int t = 1; t <= 3; t += 2) {
    ZB_CHECK_OK(zb_set_num_threads(t, &err), &err);
    for (int li = 0; li < N_LENS; li++) {
      int64_t n = k_lens[li];
      zb_column *c = random_f64(n, 3 + (uint64_t)li, true), *r = NULL;
      zb_scalar lo = {.type = ZB_INT64, .v.i = -10}, hi = {.type = ZB_FLOAT64, .v.f = 50.5};
      ZB_CHECK_OK(zb_column_clip(c, &lo, &hi, &r, &err), &err);
      for (int64_t i = 0; i < n; i++) {
        ZB_CHECK(zb_column_is_valid(r, i) == zb_column_is_valid(c, i));
        if (!zb_column_is_valid(c, i)) continue;
        double x = ((double *)c->data->data)[i], g = ((double *)r->data->data)[i];
        double w = isnan(x) ? x : x < -10 ? -10 : x > 50.5 ? 50.5 : x;
        ZB_CHECK(isnan(w) ? isnan(g) : g == w);
      }
      zb_column_release(r);
      int decs[4] = {0, 1, 2, -1};
      for (int k = 0; k < 4; k++) {
        ZB_CHECK_OK(zb_column_round(c, decs[k], &r, &err), &err);
        for (int64_t i = 0; i < n; i++) {
          if (!zb_column_is_valid(c, i)) continue;
          double x = ((double *)c->data->data)[i], g = ((double *)r->data->data)[i];
          double f = pow(10.0, abs(decs[k]));
          /* independent half-to-even: nearest, ties to the even neighbour */
          double y = decs[k] >= 0 ? x * f : x / f, fl = floor(y), diff = y - fl;
          double rr = diff > 0.5 ? fl + 1 : diff < 0.5 ? fl : (fmod(fl, 2) == 0 ? fl : fl + 1);
          double w = decs[k] >= 0 ? rr / f : rr * f;
          ZB_CHECK(isnan(x) ? isnan(g) : g == w);
        }
        zb_column_release(r);
      }
      zb_column_release(c);
    }
  }
  ZB_CHECK_OK(zb_set_num_threads(zb_available_cores(), &err), &err);
  /* Integers: round(-1) half to even; clip bounds saturating / overflowing. */
  zb_column *c = NULL, *r = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_INT8, 5, false, 0, &c, &err), &err);
  int8_t v[5] = {25, 35, -25, 14, 127};
  memcpy(c->data->data, v, sizeof v);
  ZB_CHECK_OK(zb_column_round(c, -1, &r, &err), &err);
  int8_t w[5] = {20, 40, -20, 10, (int8_t)130};
  for (int i = 0; i < 5; i++) ZB_CHECK_EQ_INT(((int8_t *)r->data->data)[i], w[i]);
  zb_column_release(r);
  zb_scalar lo = {.type = ZB_INT64, .v.i = -1000}, hi = {.type = ZB_INT64, .v.i = 30};
  ZB_CHECK_OK(zb_column_clip(c, &lo, &hi, &r, &err), &err);
  ZB_CHECK_EQ_INT(r->type, ZB_INT8);
  ZB_CHECK_EQ_INT(((int8_t *)r->data->data)[1], 30);
  ZB_CHECK_EQ_INT(((int8_t *)r->data->data)[2], -25);
  zb_column_release(r);
  lo.v.i = 1000;
  ZB_CHECK_EQ_INT(zb_column_clip(c, &lo, NULL, &r, &err), ZB_EOVERFLOW);
  zb_column_release(c);
}

ZB_TEST(test_strings_between_where) {
  zb_error err;
  for (int t = 1; t <= 3; t += 2) {
    ZB_CHECK_OK(zb_set_num_threads(t, &err), &err);
    for (int li = 0; li < N_LENS; li++) {
      int64_t n = k_lens[li];
      zb_column *c = random_f64(n, 77 + (uint64_t)li, true), *o = random_f64(n, 5, true);
      zb_column *cond = NULL, *r = NULL, *rm = NULL, *rs = NULL;
      zb_scalar l = {.type = ZB_INT64, .v.i = -20}, h = {.type = ZB_FLOAT64, .v.f = 30.0};
      ZB_CHECK_OK(zb_column_between(c, &l, &h, ZB_INCLUSIVE_LEFT, &r, &err), &err);
      for (int64_t i = 0; i < n; i++) {
        ZB_CHECK(zb_column_is_valid(r, i) == zb_column_is_valid(c, i));
        if (!zb_column_is_valid(c, i)) continue;
        double x = ((double *)c->data->data)[i];
        ZB_CHECK(zb_bit_get((const uint8_t *)r->data->data, i) == (x >= -20 && x < 30));
      }
      /* cond: the between result itself (has nulls) */
      cond = r;
      ZB_CHECK_OK(zb_column_where(c, cond, false, o, &r, &err), &err);
      ZB_CHECK_OK(zb_column_where(c, cond, true, o, &rm, &err), &err);
      zb_scalar z = {.type = ZB_INT64, .v.i = 7};
      ZB_CHECK_OK(zb_column_where_scalar(c, cond, false, &z, &rs, &err), &err);
      for (int64_t i = 0; i < n; i++) {
        bool cv = zb_column_is_valid(cond, i), cb = cv && zb_bit_get((const uint8_t *)cond->data->data, i);
        bool take_w = cv && cb, take_m = cv && !cb;
        const zb_column *sw = take_w ? c : o, *sm = take_m ? c : o;
        ZB_CHECK(zb_column_is_valid(r, i) == zb_column_is_valid(sw, i));
        ZB_CHECK(zb_column_is_valid(rm, i) == zb_column_is_valid(sm, i));
        if (zb_column_is_valid(r, i)) {
          double g = ((double *)r->data->data)[i], e = ((double *)sw->data->data)[i];
          ZB_CHECK(isnan(e) ? isnan(g) : g == e);
        }
        if (zb_column_is_valid(rm, i)) {
          double g = ((double *)rm->data->data)[i], e = ((double *)sm->data->data)[i];
          ZB_CHECK(isnan(e) ? isnan(g) : g == e);
        }
        ZB_CHECK(zb_column_is_valid(rs, i) == (take_w ? zb_column_is_valid(c, i) : true));
        if (!take_w) ZB_CHECK(((double *)rs->data->data)[i] == 7.0);
      }
      zb_column_release(r);
      zb_column_release(rm);
      zb_column_release(rs);
      /* strings */
      zb_column *sa = random_strings(n, 0, 1), *sb = random_strings(n, 2, 2);
      ZB_CHECK_OK(zb_column_where(sa, cond, false, sb, &r, &err), &err);
      ZB_CHECK_OK(zb_column_where_string(sa, cond, true, "q", 1, &rs, &err), &err);
      for (int64_t i = 0; i < n; i++) {
        bool cv = zb_column_is_valid(cond, i), cb = cv && zb_bit_get((const uint8_t *)cond->data->data, i);
        const zb_column *sw = cv && cb ? sa : sb;
        ZB_CHECK(zb_column_is_valid(r, i) == zb_column_is_valid(sw, i));
        if (zb_column_is_valid(r, i)) {
          int64_t lg, le;
          const char *g = row_str(r, i, &lg), *e = row_str(sw, i, &le);
          ZB_CHECK(lg == le && memcmp(g, e, (size_t)lg) == 0);
        }
        bool keep = cv && cb; /* mask keeps where cond is false */
        keep = cv && !cb;
        int64_t lg;
        const char *g = row_str(rs, i, &lg);
        if (!keep) ZB_CHECK(lg == 1 && g[0] == 'q');
      }
      zb_column_release(r);
      zb_column_release(rs);
      zb_column_release(sa);
      zb_column_release(sb);
      zb_column_release(cond);
      zb_column_release(c);
      zb_column_release(o);
    }
  }
  ZB_CHECK_OK(zb_set_num_threads(zb_available_cores(), &err), &err);
}

/* Every allocation failing in turn: each operation returns ZB_ENOMEM with
 * nothing leaked (the harness checks the counters after the test), then
 * succeeds once the injected failure comes after its last allocation. */
ZB_TEST(test_strings_fault_injection) {
  zb_error err;
  zb_column *s = random_strings(3000, 1, 21), *f = random_f64(3000, 4, true), *cond = NULL;
  zb_column *d = NULL;
  ZB_CHECK_OK(zb_column_new(ZB_TIMESTAMP, 3000, false, 0, &d, &err), &err);
  for (int64_t i = 0; i < 3000; i++) ((int64_t *)d->data->data)[i] = i * 7919 - 1000000;
  zb_scalar lo = {.type = ZB_INT64, .v.i = 0}, hi = {.type = ZB_INT64, .v.i = 10};
  ZB_CHECK_OK(zb_column_between(f, &lo, &hi, ZB_INCLUSIVE_BOTH, &cond, &err), &err);
  for (int op = 0; op < 7; op++) {
    bool done = false;
    for (int64_t nth = 1; nth < 60 && !done; nth++) {
      zb_column *r = NULL;
      zb_alloc_fail_after(nth);
      zb_status st;
      switch (op) {
        case 0: st = zb_column_str_cat(s, s, ",", 1, &r, &err); break;
        case 1: st = zb_column_dt_field(d, ZB_DT_YEAR, &r, &err); break;
        case 2: st = zb_column_where(s, cond, false, s, &r, &err); break;
        case 3: st = zb_column_where_scalar(f, cond, true, &hi, &r, &err); break;
        case 4: st = zb_column_clip(f, &lo, &hi, &r, &err); break;
        case 5: st = zb_column_round(f, 2, &r, &err); break;
        default: {
          zb_str_args a = args_of(ZB_STR_STRIP, "ab");
          st = zb_column_str(s, &a, &r, &err);
          break;
        }
      }
      zb_alloc_fail_after(0);
      if (st == ZB_OK) {
        done = true;
        zb_column_release(r);
      } else {
        ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
        ZB_CHECK(r == NULL);
      }
    }
    ZB_CHECK(done);
  }
  zb_column_release(cond);
  zb_column_release(s);
  zb_column_release(f);
  zb_column_release(d);
}
