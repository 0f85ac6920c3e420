/*
 * test_time_parse.c -- zb_column_parse_time: ISO 8601 and strptime formats
 * to timestamp[ns], pandas' timedelta spellings to duration[ns], missing
 * spellings, the first bad row, UTC offsets, and argument errors.  Expected
 * values are worked out by hand (days since 1970-01-01).
 */
#include <string.h>

#include "test.h"
#include "zambezi/compute.h"

static zb_column *strings(const char *const *s, int64_t n) {
  zb_error err;
  int64_t total = 0;
  for (int64_t i = 0; i < n; i++) total += s[i] ? (int64_t)strlen(s[i]) : 0;
  zb_column *c = NULL;
  if (zb_column_new(ZB_STRING, n, true, total, &c, &err) != ZB_OK) return NULL;
  int64_t *o = (int64_t *)c->data->data;
  o[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t len = s[i] ? (int64_t)strlen(s[i]) : 0;
    if (len) memcpy((char *)c->chars->data + o[i], s[i], (size_t)len);
    o[i + 1] = o[i] + len;
    if (!s[i]) zb_bit_set((uint8_t *)c->validity->data, i, false);
  }
  zb_column_recount_nulls(c);
  return c;
}

#define NS INT64_C(1000000000)
#define DAY (86400 * NS)

ZB_TEST(test_parse_datetime_iso_and_formats) {
  zb_error err;
  const char *iso[] = {"2024-03-09", "2024-03-09T14:05:30.5", NULL, "NaT", "2024-02-30",
                       " 1970-01-01 00:00:01+01:00 "};
  zb_column *c = strings(iso, 6), *r = NULL;
  ZB_CHECK(c != NULL);
  zb_parse_info info;
  ZB_CHECK_OK(zb_column_parse_time(c, ZB_PARSE_DATETIME, NULL, &r, &info, &err), &err);
  ZB_CHECK_EQ_INT(r->type, ZB_TIMESTAMP);
  ZB_CHECK_EQ_INT(r->unit, ZB_NANO);
  const int64_t *v = (const int64_t *)r->data->data;
  ZB_CHECK_EQ_INT(v[0], 19791 * DAY); /* 2024-03-09 is day 19791 */
  ZB_CHECK_EQ_INT(v[1], 19791 * DAY + (14 * 3600 + 5 * 60 + 30) * NS + NS / 2);
  ZB_CHECK(!zb_column_is_valid(r, 2) && !zb_column_is_valid(r, 3) && !zb_column_is_valid(r, 4));
  ZB_CHECK_EQ_INT(v[5], 1 * NS - 3600 * NS);
  ZB_CHECK_EQ_INT(info.bad_row, 4);
  ZB_CHECK(info.any_offset && info.any_naive && !info.mixed_offsets);
  ZB_CHECK_EQ_INT(info.offset_min, 60);
  zb_column_release(r);
  zb_column_release(c);

  const char *eu[] = {"09/03/2024 02:05 PM", "31/12/1969 12:00 AM", "9/3/2024 2:05 pm"};
  c = strings(eu, 3);
  ZB_CHECK_OK(zb_column_parse_time(c, ZB_PARSE_DATETIME, "%d/%m/%Y %I:%M %p", &r, &info, &err),
              &err);
  v = (const int64_t *)r->data->data;
  ZB_CHECK_EQ_INT(v[0], 19791 * DAY + (14 * 3600 + 5 * 60) * NS);
  ZB_CHECK_EQ_INT(v[1], -DAY);
  ZB_CHECK_EQ_INT(v[2], v[0]);
  ZB_CHECK_EQ_INT(info.bad_row, -1);
  zb_column_release(r);
  ZB_CHECK_EQ_INT(zb_column_parse_time(c, ZB_PARSE_DATETIME, "%Y %q", &r, &info, &err), ZB_EINVAL);
  zb_column_release(c);

  const char *names[] = {"Mar 9 2024", "march 10 2024", "2024-069"};
  c = strings(names, 2);
  ZB_CHECK_OK(zb_column_parse_time(c, ZB_PARSE_DATETIME, "%b %d %Y", &r, &info, &err), &err);
  ZB_CHECK_EQ_INT(((const int64_t *)r->data->data)[1], 19792 * DAY);
  ZB_CHECK_EQ_INT(info.bad_row, -1);
  zb_column_release(r);
  zb_column_release(c);
  c = strings(names + 2, 1);
  ZB_CHECK_OK(zb_column_parse_time(c, ZB_PARSE_DATETIME, "%Y-%j", &r, &info, &err), &err);
  ZB_CHECK_EQ_INT(((const int64_t *)r->data->data)[0], 19791 * DAY); /* day 69 = 9 March */
  zb_column_release(r);
  zb_column_release(c);
}

ZB_TEST(test_parse_timedelta_spellings) {
  zb_error err;
  const char *s[] = {"1 days 02:00:00", "-1 days +01:00:00", "1h30min", "1.5h", "00:00:01.5",
                     "3us", "-2h", "2 days", "nope", "", "1 day, 00:00:01", "1W"};
  const int64_t want[] = {DAY + 2 * 3600 * NS, -DAY + 3600 * NS, 5400 * NS, 5400 * NS,
                          NS + NS / 2, 3000, -7200 * NS, 2 * DAY, 0, 0, DAY + NS, 7 * DAY};
  zb_column *c = strings(s, 12), *r = NULL;
  zb_parse_info info;
  ZB_CHECK_OK(zb_column_parse_time(c, ZB_PARSE_TIMEDELTA, NULL, &r, &info, &err), &err);
  ZB_CHECK_EQ_INT(r->type, ZB_DURATION);
  for (int i = 0; i < 12; i++) {
    if (i == 8 || i == 9) {
      ZB_CHECK(!zb_column_is_valid(r, i));
      continue;
    }
    ZB_CHECK_EQ_INT(((const int64_t *)r->data->data)[i], want[i]);
  }
  ZB_CHECK_EQ_INT(info.bad_row, 8);
  ZB_CHECK_EQ_INT(r->null_count, 2);
  zb_column_release(r);
  ZB_CHECK_EQ_INT(zb_column_parse_time(c, ZB_PARSE_TIMEDELTA, "%H", &r, &info, &err), ZB_EINVAL);
  zb_column_release(c);
}
