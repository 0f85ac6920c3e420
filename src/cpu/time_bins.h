/*
 * time_bins.h -- the CPU entry points of zambezi/resample.h
 * (src/cpu/time_bins.c), called by the CPU backend's run switch with
 * arguments src/core checked.
 */
#ifndef ZAMBEZI_CPU_TIME_BINS_H
#define ZAMBEZI_CPU_TIME_BINS_H

#include "core/internal.h"
#include "zambezi/resample.h"

zb_status zb__cpu_time_range(const zb_column *times, zb_time_range *out, zb_error *err);
zb_status zb__cpu_time_bins(const zb_column *times, int64_t scale, int64_t base, int64_t width,
                            int64_t n_bins, zb_column **ids, int64_t *runs, zb_error *err);

#endif /* ZAMBEZI_CPU_TIME_BINS_H */
