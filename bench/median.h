/* The median of timed rounds, for the C benchmarks (intercept_overhead.c, record_overhead.c). */
#pragma once
#include <stdlib.h>

static int compare_doubles(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Sorts `values` in place and returns their median. */
static double median(double* values, int n) {
  qsort(values, (size_t)n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}
