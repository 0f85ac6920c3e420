/*
 * test_tz.c -- the TZif parser and the time zone conversions: offsets from
 * a hand-built TZif v2 file (its table, then its POSIX rule) at instants
 * worked out by hand, tz_localize's ambiguous and nonexistent choices, a
 * southern-hemisphere rule, every truncation and some corruptions of the
 * file (errors, never crashes), and allocation failures.
 */
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"
#include "zambezi/tz.h"

typedef struct bytes {
  uint8_t b[512];
  size_t n;
} bytes;

static void put32(bytes *o, uint32_t v) {
  for (int k = 3; k >= 0; k--) o->b[o->n++] = (uint8_t)(v >> (8 * k));
}
static void put64(bytes *o, int64_t v) {
  put32(o, (uint32_t)((uint64_t)v >> 32));
  put32(o, (uint32_t)v);
}
static void header(bytes *o, char version, uint32_t timecnt, uint32_t typecnt, uint32_t chars) {
  memcpy(o->b + o->n, "TZif", 4);
  o->n += 4;
  o->b[o->n++] = (uint8_t)version;
  memset(o->b + o->n, 0, 15);
  o->n += 15;
  put32(o, 0); /* isut */
  put32(o, 0); /* isstd */
  put32(o, 0); /* leap */
  put32(o, timecnt);
  put32(o, typecnt);
  put32(o, chars);
}

/* A Berlin-like zone: LMT +00:53:28 until 1893-04-01, then CET; table
 * transitions into CEST 2023-03-26 01:00 UTC and back 2023-10-29 01:00
 * UTC, then the rule CET-1CEST,M3.5.0,M10.5.0/3. */
static bytes berlin(const char *footer) {
  bytes o = {{0}, 0};
  header(&o, '2', 0, 1, 4); /* a minimal v1 block */
  put32(&o, 3600);
  o.b[o.n++] = 0;
  o.b[o.n++] = 0;
  memcpy(o.b + o.n, "CET", 4);
  o.n += 4;
  header(&o, '2', 3, 3, 13);
  put64(&o, -2422054408LL);  /* 1893-04-01 */
  put64(&o, 1679792400LL);   /* 2023-03-26 01:00 UTC */
  put64(&o, 1698541200LL);   /* 2023-10-29 01:00 UTC */
  o.b[o.n++] = 1;
  o.b[o.n++] = 2;
  o.b[o.n++] = 1;
  put32(&o, 3208); o.b[o.n++] = 0; o.b[o.n++] = 0;  /* LMT */
  put32(&o, 3600); o.b[o.n++] = 0; o.b[o.n++] = 4;  /* CET */
  put32(&o, 7200); o.b[o.n++] = 1; o.b[o.n++] = 8;  /* CEST */
  memcpy(o.b + o.n, "LMT\0CET\0CEST", 13);
  o.n += 13;
  o.b[o.n++] = '\n';
  size_t f = strlen(footer);
  memcpy(o.b + o.n, footer, f);
  o.n += f;
  o.b[o.n++] = '\n';
  return o;
}

/* A zone with no transitions, only a rule (as slim files end). */
static bytes rule_only(const char *footer) {
  bytes o = {{0}, 0};
  header(&o, '3', 0, 1, 4);
  put32(&o, 36000);
  o.b[o.n++] = 0;
  o.b[o.n++] = 0;
  memcpy(o.b + o.n, "XXX", 4);
  o.n += 4;
  header(&o, '3', 0, 1, 4);
  put32(&o, 36000);
  o.b[o.n++] = 0;
  o.b[o.n++] = 0;
  memcpy(o.b + o.n, "XXX", 4);
  o.n += 4;
  o.b[o.n++] = '\n';
  size_t f = strlen(footer);
  memcpy(o.b + o.n, footer, f);
  o.n += f;
  o.b[o.n++] = '\n';
  return o;
}

#define H 3600
#define DAYS(y, m, d) zb__test_days(y, m, d)
static int64_t zb__test_days(int y, int m, int d) { /* days since 1970, March-based */
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

ZB_TEST(test_tz_offsets_table_and_rule) {
  zb_error err;
  bytes b = berlin("CET-1CEST,M3.5.0,M10.5.0/3");
  zb_tz *z = NULL;
  ZB_CHECK_OK(zb_tz_parse(b.b, b.n, "Test/Berlin", &z, &err), &err);
  if (z == NULL) return;
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, -2422054409LL), 3208); /* LMT */
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, -2422054408LL), 3600);
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, 1679792399LL), 3600);
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, 1679792400LL), 7200);
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, 1698541200LL), 3600);
  /* from the rule: 2024-03-31 01:00 UTC and 2024-10-27 01:00 UTC */
  int64_t spring = DAYS(2024, 3, 31) * 86400 + 1 * H, fall = DAYS(2024, 10, 27) * 86400 + H;
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, spring - 1), 3600);
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, spring), 7200);
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, fall - 1), 7200);
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, fall), 3600);
  /* 2400: last Sunday of March is the 26th */
  int64_t s2400 = DAYS(2400, 3, 26) * 86400 + H;
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, s2400 - 1), 3600);
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, s2400), 7200);
  /* 3 table transitions + 2 per year 2024 .. 2500 */
  ZB_CHECK_EQ_INT(zb_tz_transition_count(z), 3 + 2 * (2500 - 2024 + 1));
  zb_tz_release(z);
}

ZB_TEST(test_tz_southern_rule) {
  zb_error err;
  bytes b = rule_only("AEST-10AEDT,M10.1.0,M4.1.0/3");
  zb_tz *z = NULL;
  ZB_CHECK_OK(zb_tz_parse(b.b, b.n, "Test/Sydney", &z, &err), &err);
  if (z == NULL) return;
  /* 2024-04-07 03:00 AEDT = 2024-04-06 16:00 UTC; 2024-10-06 02:00 AEST =
   * 2024-10-05 16:00 UTC */
  int64_t back = DAYS(2024, 4, 6) * 86400 + 16 * H, fwd = DAYS(2024, 10, 5) * 86400 + 16 * H;
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, back - 1), 11 * H);
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, back), 10 * H);
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, fwd - 1), 10 * H);
  ZB_CHECK_EQ_INT(zb_tz_offset_at(z, fwd), 11 * H);
  zb_tz_release(z);
  /* a quoted name, minutes and a J rule */
  b = rule_only("<+0530>-5:30");
  ZB_CHECK_OK(zb_tz_parse(b.b, b.n, "Test/India", &z, &err), &err);
  if (z != NULL) ZB_CHECK_EQ_INT(zb_tz_offset_at(z, 0), 5 * H + 1800);
  zb_tz_release(z);
}

static zb_column *stamps(const int64_t *v, int64_t n, zb_time_unit unit) {
  zb_error err;
  zb_column *c = NULL;
  if (zb_column_new(ZB_TIMESTAMP, n, true, 0, &c, &err) != ZB_OK) return NULL;
  memcpy(c->data->data, v, (size_t)n * sizeof *v);
  zb_column_set_time(c, unit, NULL, &err);
  return c;
}

ZB_TEST(test_tz_localize_choices) {
  zb_error err;
  bytes b = berlin("CET-1CEST,M3.5.0,M10.5.0/3");
  zb_tz *z = NULL;
  ZB_CHECK_OK(zb_tz_parse(b.b, b.n, "Europe/Berlin", &z, &err), &err);
  if (z == NULL) return;
  const int64_t S = 1000; /* ms */
  int64_t d_spring = DAYS(2024, 3, 31) * 86400, d_fall = DAYS(2024, 10, 27) * 86400;
  int64_t wall[4] = {(d_spring + 2 * H + 1800) * S, /* 02:30, in the gap */
                     (d_fall + 2 * H + 1800) * S,   /* 02:30, twice */
                     (d_fall + 12 * H) * S,         /* noon: CET */
                     0};
  zb_column *c = stamps(wall, 4, ZB_MILLI), *r = NULL;
  ZB_CHECK(c != NULL);
  zb_bit_set((uint8_t *)c->validity->data, 3, false);
  zb_column_recount_nulls(c);
  ZB_CHECK_EQ_INT(zb_column_tz_localize(c, z, "Europe/Berlin", ZB_TZ_AMBIGUOUS_EARLIER, NULL,
                                        ZB_TZ_NONEXISTENT_RAISE, &r, &err),
                  ZB_EINVAL);
  ZB_CHECK(r == NULL);
  ZB_CHECK(strstr(err.message, "row 0: 2024-03-31 02:30:00 does not exist") != NULL);
  ZB_CHECK_EQ_INT(zb_column_tz_localize(c, z, "Europe/Berlin", ZB_TZ_AMBIGUOUS_RAISE, NULL,
                                        ZB_TZ_NONEXISTENT_NAT, &r, &err),
                  ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "row 1: 2024-10-27 02:30:00 is ambiguous") != NULL);
  ZB_CHECK_OK(zb_column_tz_localize(c, z, "Europe/Berlin", ZB_TZ_AMBIGUOUS_EARLIER, NULL,
                                    ZB_TZ_NONEXISTENT_SHIFT_FORWARD, &r, &err),
              &err);
  if (r != NULL) {
    const int64_t *o = (const int64_t *)r->data->data;
    ZB_CHECK_EQ_INT(o[0], (d_spring + H) * S);          /* 01:00 UTC */
    ZB_CHECK_EQ_INT(o[1], (d_fall + H / 2) * S);        /* 00:30 UTC (CEST) */
    ZB_CHECK_EQ_INT(o[2], (d_fall + 11 * H) * S);
    ZB_CHECK_EQ_INT(r->null_count, 1);
    ZB_CHECK(strcmp(r->timezone, "Europe/Berlin") == 0);
    /* and back to wall times */
    zb_column *w = NULL;
    ZB_CHECK_OK(zb_column_tz_to_wall(r, z, &w, &err), &err);
    if (w != NULL) {
      const int64_t *ww = (const int64_t *)w->data->data;
      ZB_CHECK_EQ_INT(ww[0], (d_spring + 3 * H) * S);
      ZB_CHECK_EQ_INT(ww[1], wall[1]);
      ZB_CHECK_EQ_INT(ww[2], wall[2]);
      ZB_CHECK_EQ_INT(w->null_count, 1);
      ZB_CHECK(w->timezone == NULL);
    }
    zb_column_release(w);
  }
  zb_column_release(r);
  r = NULL;
  zb_column *am = NULL; /* bits: earlier, later, earlier, earlier */
  ZB_CHECK_OK(zb_column_new(ZB_BOOL, 4, false, 0, &am, &err), &err);
  ((uint8_t *)am->data->data)[0] = 0x0d;
  ZB_CHECK_OK(zb_column_tz_localize(c, z, "Europe/Berlin", ZB_TZ_AMBIGUOUS_ARRAY, am,
                                    ZB_TZ_NONEXISTENT_SHIFT_BACKWARD, &r, &err),
              &err);
  if (r != NULL) {
    const int64_t *o = (const int64_t *)r->data->data;
    ZB_CHECK_EQ_INT(o[0], (d_spring + H) * S - 1); /* 00:59:59.999 UTC */
    ZB_CHECK_EQ_INT(o[1], (d_fall + H + H / 2) * S); /* 01:30 UTC (CET) */
  }
  zb_column_release(r);
  r = NULL;
  ZB_CHECK_OK(zb_column_tz_localize(c, z, "Europe/Berlin", ZB_TZ_AMBIGUOUS_NAT, NULL,
                                    ZB_TZ_NONEXISTENT_NAT, &r, &err),
              &err);
  if (r != NULL) ZB_CHECK_EQ_INT(r->null_count, 3);
  zb_column_release(r);
  r = NULL;
  /* argument errors */
  ZB_CHECK_EQ_INT(zb_column_tz_localize(c, z, "Europe/Berlin", ZB_TZ_AMBIGUOUS_ARRAY, NULL,
                                        ZB_TZ_NONEXISTENT_NAT, &r, &err),
                  ZB_EINVAL);
  ZB_CHECK_EQ_INT(zb_column_tz_to_wall(am, z, &r, &err), ZB_ETYPE);
  /* allocation failures leave nothing behind */
  for (int64_t nth = 1; nth < 20; nth++) {
    zb_alloc_fail_after(nth);
    zb_status st = zb_column_tz_localize(c, z, "Europe/Berlin", ZB_TZ_AMBIGUOUS_NAT, NULL,
                                         ZB_TZ_NONEXISTENT_NAT, &r, &err);
    zb_alloc_fail_after(0);
    if (st == ZB_OK) {
      zb_column_release(r);
      break;
    }
    ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
    ZB_CHECK(r == NULL);
  }
  zb_column_release(am);
  zb_column_release(c);
  zb_tz_release(z);
}

ZB_TEST(test_tz_corrupt_files) {
  zb_error err;
  bytes b = berlin("CET-1CEST,M3.5.0,M10.5.0/3");
  zb_tz *z = NULL;
  /* every truncation is an error */
  for (size_t n = 0; n < b.n; n++) {
    zb_status st = zb_tz_parse(b.b, n, "Cut", &z, &err);
    ZB_CHECK_EQ_INT(st, ZB_EPARSE);
    ZB_CHECK(z == NULL);
  }
  /* the v1 block is 44 + 10 bytes; the 64-bit block's data starts at 98:
   * 3 transition times, then their type indices at 122 */
  bytes bad = b;
  bad.b[0] = 'X';
  ZB_CHECK_EQ_INT(zb_tz_parse(bad.b, bad.n, "Magic", &z, &err), ZB_EPARSE);
  bad = b;
  bad.b[54 + 44 + 24] = 7; /* the first transition's type index, out of range */
  ZB_CHECK_EQ_INT(zb_tz_parse(bad.b, bad.n, "Type", &z, &err), ZB_EPARSE);
  ZB_CHECK(strstr(err.message, "type") != NULL);
  bad = b;
  memset(bad.b + 54 + 44, 0x7f, 8); /* the first transition after the others */
  ZB_CHECK_EQ_INT(zb_tz_parse(bad.b, bad.n, "Order", &z, &err), ZB_EPARSE);
  bad = b;
  bad.b[54 + 32] = 0xff; /* a huge transition count */
  ZB_CHECK_EQ_INT(zb_tz_parse(bad.b, bad.n, "Count", &z, &err), ZB_EPARSE);
  const char *rules[] = {"CET", "CET-1CEST,M13.5.0,M10.5.0", "CET-1CEST,M3.5.0", "-1",
                         "CET-1CEST,M3.5.0/x,M10.5.0", "<CET-1"};
  for (int k = 0; k < 6; k++) {
    bytes r = berlin(rules[k]);
    ZB_CHECK_EQ_INT(zb_tz_parse(r.b, r.n, "Rule", &z, &err), ZB_EPARSE);
    ZB_CHECK(z == NULL);
  }
  /* allocation failures */
  for (int64_t nth = 1; nth < 20; nth++) {
    zb_alloc_fail_after(nth);
    zb_status st = zb_tz_parse(b.b, b.n, "Alloc", &z, &err);
    zb_alloc_fail_after(0);
    if (st == ZB_OK) {
      zb_tz_release(z);
      break;
    }
    ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
    ZB_CHECK(z == NULL);
  }
}

/* ambiguous "infer": a fall-back run 02:00 02:30 02:00 02:30 takes CEST
 * for its first pass and CET from the row that goes back; runs pandas
 * cannot infer are errors naming the run's first row */
ZB_TEST(test_tz_localize_infer) {
  zb_error err;
  bytes b = berlin("CET-1CEST,M3.5.0,M10.5.0/3");
  zb_tz *z = NULL;
  ZB_CHECK_OK(zb_tz_parse(b.b, b.n, "Europe/Berlin", &z, &err), &err);
  if (z == NULL) return;
  int64_t f = DAYS(2024, 10, 27) * 86400; /* seconds */
  int64_t wall[7] = {f + H + 1800, f + 2 * H, f + 2 * H + 1800, f + 2 * H, 0, f + 2 * H + 1800,
                     f + 3 * H};
  zb_column *c = stamps(wall, 7, ZB_SECOND), *r = NULL;
  ZB_CHECK(c != NULL);
  zb_bit_set((uint8_t *)c->validity->data, 4, false); /* a null ends the run ... */
  zb_column_recount_nulls(c);
  /* ... so the 02:30 after it stands alone: pandas cannot infer it */
  ZB_CHECK_EQ_INT(zb_column_tz_localize(c, z, "Europe/Berlin", ZB_TZ_AMBIGUOUS_INFER, NULL,
                                        ZB_TZ_NONEXISTENT_RAISE, &r, &err),
                  ZB_EINVAL);
  ZB_CHECK(r == NULL);
  ZB_CHECK(strstr(err.message, "row 5: cannot infer DST for 2024-10-27 02:30:00") != NULL);
  zb_bit_set((uint8_t *)c->validity->data, 4, true);
  ((int64_t *)c->data->data)[4] = f + 2 * H + 1800; /* 02:00 02:30 02:00 02:30 02:30 */
  ((int64_t *)c->data->data)[5] = f + 2 * H + 2700; /* 02:45 */
  zb_column_recount_nulls(c);
  ZB_CHECK_OK(zb_column_tz_localize(c, z, "Europe/Berlin", ZB_TZ_AMBIGUOUS_INFER, NULL,
                                    ZB_TZ_NONEXISTENT_RAISE, &r, &err),
              &err);
  if (r != NULL) {
    const int64_t *o = (const int64_t *)r->data->data;
    int64_t want[7] = {f - H / 2, f, f + H / 2, f + H, f + H + H / 2, f + H + 3 * H / 4,
                       f + 2 * H};
    for (int k = 0; k < 7; k++) ZB_CHECK_EQ_INT(o[k], want[k]);
  }
  zb_column_release(r);
  r = NULL;
  /* going back twice in one run */
  ((int64_t *)c->data->data)[5] = f + 2 * H;
  ZB_CHECK_EQ_INT(zb_column_tz_localize(c, z, "Europe/Berlin", ZB_TZ_AMBIGUOUS_INFER, NULL,
                                        ZB_TZ_NONEXISTENT_RAISE, &r, &err),
                  ZB_EINVAL);
  ZB_CHECK(strstr(err.message, "row 1: cannot infer DST") != NULL);
  ZB_CHECK(strstr(err.message, "fall back 2 times") != NULL);
  ((int64_t *)c->data->data)[5] = f + 2 * H + 2700;
  /* an unknown choice is refused */
  ZB_CHECK_EQ_INT(zb_column_tz_localize(c, z, "Europe/Berlin", (zb_tz_ambiguous)99, NULL,
                                        ZB_TZ_NONEXISTENT_RAISE, &r, &err),
                  ZB_EINVAL);
  /* allocation failures leave nothing behind */
  for (int64_t nth = 1; nth < 20; nth++) {
    zb_alloc_fail_after(nth);
    zb_status st = zb_column_tz_localize(c, z, "Europe/Berlin", ZB_TZ_AMBIGUOUS_INFER, NULL,
                                         ZB_TZ_NONEXISTENT_RAISE, &r, &err);
    zb_alloc_fail_after(0);
    if (st == ZB_OK) {
      zb_column_release(r);
      r = NULL;
      break;
    }
    ZB_CHECK_EQ_INT(st, ZB_ENOMEM);
    ZB_CHECK(r == NULL);
  }
  zb_column_release(c);
  zb_tz_release(z);
}
