/*
 * tzif.c -- TZif (RFC 8536) files to zb_tz tables, and the POSIX TZ rule
 * at their end (RFC 8536 section 3.3, POSIX.1 TZ) expanded into explicit
 * transitions through ZB_TZ_LAST_RULE_YEAR, so that a lookup is one binary
 * search whatever the date.
 *
 * Every count read from the file is checked against the bytes left before
 * it is used; nothing is read past data + len.  A version 1 file is read
 * from its 32-bit block; later versions from the 64-bit block after it.
 */
#include <string.h>

#include "core/calendar.h"
#include "core/internal.h"
#include "core/tz.h"

/* The largest |offset| accepted: 26 hours (RFC 8536 allows -89999 ..
 * 93599 seconds; real zones stay within 15 hours). */
#define MAX_OFF (26 * 3600)

static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const uint8_t *p) {
  return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

typedef struct header {
  uint32_t isut, isstd, leap, time, type, chars;
} header;

static zb_status read_header(const uint8_t *p, size_t left, const char *name, header *h,
                             int *version, zb_error *err) {
  if (left < 44 || memcmp(p, "TZif", 4) != 0)
    return zb_error_set(err, ZB_EPARSE, "time zone '%s': not a TZif file (no TZif header)",
                        name);
  *version = p[4] == 0 ? 1 : p[4] - '0';
  if (*version < 1 || *version > 9)
    return zb_error_set(err, ZB_EPARSE, "time zone '%s': unknown TZif version byte 0x%02x",
                        name, p[4]);
  h->isut = be32(p + 20);
  h->isstd = be32(p + 24);
  h->leap = be32(p + 28);
  h->time = be32(p + 32);
  h->type = be32(p + 36);
  h->chars = be32(p + 40);
  if (h->type == 0 || h->chars == 0 || (h->isut != 0 && h->isut != h->type) ||
      (h->isstd != 0 && h->isstd != h->type))
    return zb_error_set(err, ZB_EPARSE, "time zone '%s': TZif header has bad counts", name);
  return ZB_OK;
}

/* Bytes of the data block after a header, with times of tsize bytes. */
static uint64_t block_size(const header *h, int tsize) {
  return (uint64_t)h->time * (uint64_t)(tsize + 1) + (uint64_t)h->type * 6 + h->chars +
         (uint64_t)h->leap * (uint64_t)(tsize + 4) + h->isstd + h->isut;
}

/* ---- the POSIX TZ rule ---------------------------------------------------- */

typedef struct rule_date {
  char kind; /* 'J' (1..365, no Feb 29), 'D' (0..365), 'M' (month.week.day) */
  int a, b, c;
  int64_t time; /* seconds after local midnight, may be negative */
} rule_date;

typedef struct posix_rule {
  int32_t std_off, dst_off; /* seconds east of UTC */
  int has_dst;
  rule_date start, end;
} posix_rule;

static const char *parse_name(const char *s) {
  if (*s == '<') {
    const char *q = s + 1;
    while (*q != '\0' && *q != '>') q++;
    if (*q != '>' || q - s - 1 < 1) return NULL;
    return q + 1;
  }
  const char *q = s;
  while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')) q++;
  return q - s >= 3 ? q : NULL;
}

static const char *parse_num(const char *s, int lo, int hi, int *v) {
  if (*s < '0' || *s > '9') return NULL;
  int x = 0;
  while (*s >= '0' && *s <= '9') {
    x = x * 10 + (*s - '0');
    if (x > hi) return NULL;
    s++;
  }
  if (x < lo) return NULL;
  *v = x;
  return s;
}

/* [+-]hh[:mm[:ss]] with hh <= max_h, in seconds. */
static const char *parse_hms(const char *s, int max_h, int64_t *secs) {
  int sign = 1, h = 0, m = 0, sec = 0;
  if (*s == '+' || *s == '-') sign = *s++ == '-' ? -1 : 1;
  if ((s = parse_num(s, 0, max_h, &h)) == NULL) return NULL;
  if (*s == ':') {
    if ((s = parse_num(s + 1, 0, 59, &m)) == NULL) return NULL;
    if (*s == ':' && (s = parse_num(s + 1, 0, 59, &sec)) == NULL) return NULL;
  }
  *secs = sign * ((int64_t)h * 3600 + m * 60 + sec);
  return s;
}

static const char *parse_date(const char *s, rule_date *d) {
  d->time = 7200; /* 02:00 by default */
  if (*s == 'J') {
    d->kind = 'J';
    s = parse_num(s + 1, 1, 365, &d->a);
  } else if (*s == 'M') {
    d->kind = 'M';
    if ((s = parse_num(s + 1, 1, 12, &d->a)) == NULL || *s != '.') return NULL;
    if ((s = parse_num(s + 1, 1, 5, &d->b)) == NULL || *s != '.') return NULL;
    s = parse_num(s + 1, 0, 6, &d->c);
  } else {
    d->kind = 'D';
    s = parse_num(s, 0, 365, &d->a);
  }
  if (s != NULL && *s == '/') s = parse_hms(s + 1, 167, &d->time);
  return s;
}

/* Parse the rule text s (NUL-terminated, without the newlines). */
static bool parse_rule(const char *s, posix_rule *r) {
  memset(r, 0, sizeof *r);
  int64_t v;
  if ((s = parse_name(s)) == NULL || (s = parse_hms(s, 24, &v)) == NULL) return false;
  r->std_off = (int32_t)-v;
  if (*s == '\0') return true;
  if ((s = parse_name(s)) == NULL) return false;
  r->has_dst = 1;
  r->dst_off = r->std_off + 3600;
  if (*s != ',' && *s != '\0') {
    if ((s = parse_hms(s, 24, &v)) == NULL) return false;
    r->dst_off = (int32_t)-v;
  }
  if (*s == '\0') { /* no rule given: POSIX leaves it to the system; use the US rule */
    r->start = (rule_date){'M', 3, 2, 0, 7200};
    r->end = (rule_date){'M', 11, 1, 0, 7200};
    return true;
  }
  if (*s != ',' || (s = parse_date(s + 1, &r->start)) == NULL) return false;
  if (*s != ',' || (s = parse_date(s + 1, &r->end)) == NULL) return false;
  return *s == '\0';
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

/* Days since the epoch of the rule date d in year y. */
static int64_t rule_day(const rule_date *d, int64_t y) {
  int64_t jan1 = zb__days_from_civil(y, 1, 1);
  if (d->kind == 'J') return jan1 + d->a - 1 + (is_leap(y) && d->a >= 60);
  if (d->kind == 'D') return jan1 + d->a;
  static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int64_t first = zb__days_from_civil(y, (unsigned)d->a, 1);
  int64_t wday = ((first + 4) % 7 + 7) % 7; /* 1970-01-01 was a Thursday; Sunday = 0 */
  int64_t day = first + (d->c - wday + 7) % 7 + 7 * (d->b - 1);
  int64_t len = mdays[d->a - 1] + (d->a == 2 && is_leap(y));
  while (day >= first + len) day -= 7;
  return day;
}

/* ---- the table ------------------------------------------------------------ */

typedef struct builder {
  int64_t n, cap;
  int64_t *at;
  int32_t *off;
} builder;

static zb_status push(builder *b, int64_t at, int32_t off, zb_error *err) {
  if (b->n == b->cap) {
    int64_t cap = b->cap < 64 ? 64 : b->cap * 2;
    int64_t *a = (int64_t *)zb_malloc((size_t)cap * sizeof *a);
    int32_t *o = (int32_t *)zb_malloc((size_t)cap * sizeof *o);
    if (a == NULL || o == NULL) {
      zb_free(a);
      zb_free(o);
      return zb_error_set(err, ZB_ENOMEM, "out of host memory (time zone table)");
    }
    if (b->n > 0) {
      memcpy(a, b->at, (size_t)b->n * sizeof *a);
      memcpy(o, b->off, (size_t)b->n * sizeof *o);
    }
    zb_free(b->at);
    zb_free(b->off);
    b->at = a;
    b->off = o;
    b->cap = cap;
  }
  b->at[b->n] = at;
  b->off[b->n] = off;
  b->n++;
  return ZB_OK;
}

/* Append the rule's transitions after the table's last one. */
static zb_status expand_rule(builder *b, int32_t *off0, const posix_rule *r, zb_error *err) {
  int32_t cur = b->n > 0 ? b->off[b->n - 1] : *off0;
  if (!r->has_dst) {
    if (cur != r->std_off) {
      if (b->n == 0) *off0 = r->std_off;
      /* an offset the table does not end with: it holds from the last
       * transition on (the rule describes the time after it) */
      else b->off[b->n - 1] = r->std_off;
    }
    return ZB_OK;
  }
  int64_t last = b->n > 0 ? b->at[b->n - 1] : INT64_MIN;
  int64_t y0 = 1800;
  if (b->n > 0) {
    int64_t yy;
    unsigned mm, dd;
    zb__civil_from_days(zb__floor_div(last, 86400), &yy, &mm, &dd);
    y0 = yy;
  }
  for (int64_t y = y0; y <= ZB_TZ_LAST_RULE_YEAR; y++) {
    int64_t s = rule_day(&r->start, y) * 86400 + r->start.time - r->std_off;
    int64_t e = rule_day(&r->end, y) * 86400 + r->end.time - r->dst_off;
    int64_t t1 = s < e ? s : e, t2 = s < e ? e : s;
    int32_t o1 = s < e ? r->dst_off : r->std_off, o2 = s < e ? r->std_off : r->dst_off;
    if (t1 > last && o1 != cur) {
      ZB_RETURN_NOT_OK(push(b, t1, o1, err));
      last = t1;
      cur = o1;
    }
    if (t2 > last && o2 != cur) {
      ZB_RETURN_NOT_OK(push(b, t2, o2, err));
      last = t2;
      cur = o2;
    }
  }
  return ZB_OK;
}

zb_status zb_tz_parse(const uint8_t *data, size_t len, const char *name, zb_tz **out,
                      zb_error *err) {
  if (out == NULL) return zb_error_set(err, ZB_EINVAL, "tz_parse: NULL output");
  *out = NULL;
  if (name == NULL) name = "?";
  if (data == NULL && len > 0) return zb_error_set(err, ZB_EINVAL, "tz_parse: NULL data");
  header h;
  int version;
  ZB_RETURN_NOT_OK(read_header(data, len, name, &h, &version, err));
  const uint8_t *p = data + 44;
  size_t left = len - 44;
  int tsize = 4;
  uint64_t need = block_size(&h, 4);
  if (need > left)
    return zb_error_set(err, ZB_EPARSE, "time zone '%s': TZif file truncated (%zu bytes)", name,
                        len);
  if (version >= 2) { /* skip the 32-bit block: read the 64-bit one */
    p += need;
    left -= (size_t)need;
    int v2;
    ZB_RETURN_NOT_OK(read_header(p, left, name, &h, &v2, err));
    p += 44;
    left -= 44;
    tsize = 8;
    need = block_size(&h, 8);
    if (need > left)
      return zb_error_set(err, ZB_EPARSE, "time zone '%s': TZif file truncated (%zu bytes)",
                          name, len);
  }
  if (h.leap != 0)
    return zb_error_set(err, ZB_ENOTSUP,
                        "time zone '%s': the TZif file counts leap seconds (a 'right/' zone), "
                        "which pandas' time does not: use the zone without 'right/'",
                        name);
  const uint8_t *times = p, *idx = p + (size_t)h.time * tsize,
                *types = idx + h.time;
  /* the local time types: offsets, checked */
  for (uint32_t k = 0; k < h.type; k++) {
    int32_t o = (int32_t)be32(types + 6 * k);
    if (o < -MAX_OFF || o > MAX_OFF || types[6 * k + 4] > 1 || types[6 * k + 5] >= h.chars)
      return zb_error_set(err, ZB_EPARSE, "time zone '%s': local time type %u is invalid", name,
                          k);
  }
  posix_rule rule;
  bool have_rule = false;
  if (version >= 2) {
    const uint8_t *f = p + need, *end = data + len;
    if (f >= end || *f != '\n')
      return zb_error_set(err, ZB_EPARSE, "time zone '%s': TZif footer missing", name);
    const uint8_t *nl = memchr(f + 1, '\n', (size_t)(end - f - 1));
    if (nl == NULL || nl - f - 1 > 255)
      return zb_error_set(err, ZB_EPARSE, "time zone '%s': TZif footer not terminated", name);
    if (nl > f + 1) {
      char text[256];
      memcpy(text, f + 1, (size_t)(nl - f - 1));
      text[nl - f - 1] = '\0';
      if (!parse_rule(text, &rule))
        return zb_error_set(err, ZB_EPARSE, "time zone '%s': bad POSIX TZ rule '%s' in footer",
                            name, text);
      have_rule = true;
    }
  }
  builder b = {0, 0, NULL, NULL};
  int32_t off0 = (int32_t)be32(types); /* type 0: before the first transition */
  zb_status st = ZB_OK;
  int64_t prev = INT64_MIN;
  for (uint32_t k = 0; st == ZB_OK && k < h.time; k++) {
    int64_t t = tsize == 8 ? be64(times + 8 * (size_t)k) : (int32_t)be32(times + 4 * (size_t)k);
    if (idx[k] >= h.type) {
      st = zb_error_set(err, ZB_EPARSE, "time zone '%s': transition %u has type %u of %u", name,
                        k, idx[k], h.type);
      break;
    }
    if (k > 0 && t <= prev) {
      st = zb_error_set(err, ZB_EPARSE, "time zone '%s': transition times not ascending at %u",
                        name, k);
      break;
    }
    prev = t;
    int32_t o = (int32_t)be32(types + 6 * (size_t)idx[k]);
    int32_t cur = b.n > 0 ? b.off[b.n - 1] : off0;
    if (o != cur) st = push(&b, t, o, err);
  }
  if (st == ZB_OK && have_rule) st = expand_rule(&b, &off0, &rule, err);
  zb_tz *z = NULL;
  if (st == ZB_OK) {
    z = (zb_tz *)zb_malloc(sizeof *z);
    if (z == NULL) st = zb_error_set(err, ZB_ENOMEM, "out of host memory (time zone)");
  }
  if (st != ZB_OK) {
    zb_free(b.at);
    zb_free(b.off);
    return st;
  }
  z->n = b.n;
  z->at = b.at;
  z->off = b.off;
  z->off0 = off0;
  *out = z;
  return ZB_OK;
}

void zb_tz_release(zb_tz *tz) {
  if (tz == NULL) return;
  zb_free(tz->at);
  zb_free(tz->off);
  zb_free(tz);
}

int32_t zb_tz_offset_at(const zb_tz *tz, int64_t utc_s) { return zb__tz_off(tz, utc_s); }

int64_t zb_tz_transition_count(const zb_tz *tz) { return tz->n; }
