/* Statistics over benchmark repeats; see stats.h. */
#include "results/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

static double *sorted_copy(const double *x, size_t n) {
  double *s = malloc(n * sizeof(*s));
  if (s == NULL)
    return NULL;
  memcpy(s, x, n * sizeof(*s));
  qsort(s, n, sizeof(*s), cmp_double);
  return s;
}

double placer_stats_mean(const double *x, size_t n) {
  if (n == 0)
    return NAN;
  double sum = 0;
  for (size_t i = 0; i < n; i++)
    sum += x[i];
  return sum / (double)n;
}

double placer_stats_min(const double *x, size_t n) {
  if (n == 0)
    return NAN;
  double m = x[0];
  for (size_t i = 1; i < n; i++)
    if (x[i] < m)
      m = x[i];
  return m;
}

double placer_stats_max(const double *x, size_t n) {
  if (n == 0)
    return NAN;
  double m = x[0];
  for (size_t i = 1; i < n; i++)
    if (x[i] > m)
      m = x[i];
  return m;
}

double placer_stats_percentile_sorted(const double *sorted, size_t n, double p) {
  if (n == 0 || !(p >= 0 && p <= 100))
    return NAN;
  double h = (double)(n - 1) * p / 100.0;
  size_t lo = (size_t)floor(h);
  if (lo + 1 >= n)
    return sorted[n - 1];
  return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

static double median_sorted(const double *s, size_t n) {
  if (n == 0)
    return NAN;
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

double placer_stats_median(const double *x, size_t n) {
  if (n == 0)
    return NAN;
  double *s = sorted_copy(x, n);
  if (s == NULL)
    return NAN;
  double v = median_sorted(s, n);
  free(s);
  return v;
}

void placer_stats_summarize(const double *x, size_t n, struct placer_stats_summary *out) {
  out->n = n;
  out->min = placer_stats_min(x, n);
  out->max = placer_stats_max(x, n);
  out->mean = placer_stats_mean(x, n);
  out->median = placer_stats_median(x, n);
}

uint64_t placer_stats_splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* An index in [0, n): the high half of a 64x64-bit product (Lemire), no modulo. */
static size_t random_index(uint64_t *state, size_t n) {
  return (size_t)(((unsigned __int128)placer_stats_splitmix64(state) * n) >> 64);
}

static double resampled_median(const double *x, size_t n, double *buf, uint64_t *state) {
  for (size_t i = 0; i < n; i++)
    buf[i] = x[random_index(state, n)];
  qsort(buf, n, sizeof(*buf), cmp_double);
  return median_sorted(buf, n);
}

int placer_stats_bootstrap_change_ci(const double *a, size_t na, const double *b, size_t nb, unsigned resamples,
                                     uint64_t seed, double level, double *low, double *high) {
  *low = *high = NAN;
  if (na == 0 || nb == 0 || resamples == 0)
    return 0;
  double *buf = malloc((na > nb ? na : nb) * sizeof(*buf));
  double *changes = malloc(resamples * sizeof(*changes));
  if (buf == NULL || changes == NULL) {
    free(buf);
    free(changes);
    return -1;
  }
  uint64_t state = seed;
  bool defined = true;
  for (unsigned r = 0; r < resamples; r++) {
    double ma = resampled_median(a, na, buf, &state);
    double mb = resampled_median(b, nb, buf, &state);
    if (!(ma != 0)) /* also catches NAN */
      defined = false;
    changes[r] = mb / ma - 1.0;
  }
  if (defined) {
    qsort(changes, resamples, sizeof(*changes), cmp_double);
    *low = placer_stats_percentile_sorted(changes, resamples, 100.0 * (1.0 - level) / 2.0);
    *high = placer_stats_percentile_sorted(changes, resamples, 100.0 * (1.0 + level) / 2.0);
  }
  free(buf);
  free(changes);
  return 0;
}

/* P(U <= u) and P(U >= u) under H0 for sizes m, n, no ties. count[i][j][k] is the
 * number of orderings of i a's and j b's with k (a > b) pairs: the largest value is
 * either an a (above all j b's: k - j left for the rest) or a b (adds nothing). */
static double exact_two_sided(size_t m, size_t n, size_t u) {
  size_t umax = m * n, stride_j = umax + 1, stride_i = (n + 1) * stride_j;
  double *count = calloc((m + 1) * stride_i, sizeof(*count));
  if (count == NULL)
    return NAN;
#define C(i, j, k) count[(i)*stride_i + (j)*stride_j + (k)]
  for (size_t i = 0; i <= m; i++)
    for (size_t j = 0; j <= n; j++)
      for (size_t k = 0; k <= i * j; k++) {
        if (i == 0 || j == 0) {
          C(i, j, k) = k == 0;
          continue;
        }
        C(i, j, k) = (k >= j ? C(i - 1, j, k - j) : 0) + C(i, j - 1, k);
      }
  double total = 0, le = 0, ge = 0;
  for (size_t k = 0; k <= umax; k++) {
    total += C(m, n, k);
    if (k <= u)
      le += C(m, n, k);
    if (k >= u)
      ge += C(m, n, k);
  }
#undef C
  free(count);
  double p = 2.0 * fmin(le, ge) / total;
  return p > 1.0 ? 1.0 : p;
}

void placer_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
                               struct placer_stats_mann_whitney *out) {
  out->u_a = NAN;
  out->p_value = NAN;
  out->exact = false;
  if (na == 0 || nb == 0)
    return;
  double u = 0;
  for (size_t i = 0; i < na; i++)
    for (size_t j = 0; j < nb; j++)
      u += a[i] > b[j] ? 1.0 : a[i] == b[j] ? 0.5 : 0.0;
  out->u_a = u;

  size_t n = na + nb;
  double *all = malloc(n * sizeof(*all));
  if (all == NULL)
    return;
  memcpy(all, a, na * sizeof(*all));
  memcpy(all + na, b, nb * sizeof(*all));
  qsort(all, n, sizeof(*all), cmp_double);
  double tie_sum = 0; /* sum of t^3 - t over groups of t tied values */
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j] == all[i])
      j++;
    double t = (double)(j - i);
    tie_sum += t * t * t - t;
    i = j;
  }
  free(all);

  double m = (double)na, k = (double)nb, N = (double)n;
  if (tie_sum == 0 && na <= PLACER_STATS_MW_EXACT_MAX && nb <= PLACER_STATS_MW_EXACT_MAX) {
    out->p_value = exact_two_sided(na, nb, (size_t)u);
    out->exact = !isnan(out->p_value);
    return;
  }
  double var = m * k / 12.0 * ((N + 1.0) - tie_sum / (N * (N - 1.0)));
  if (!(var > 0)) {
    out->p_value = 1.0;
    return;
  }
  double z = (fabs(u - m * k / 2.0) - 0.5) / sqrt(var);
  double p = z > 0 ? erfc(z / sqrt(2.0)) : 1.0;
  out->p_value = p > 1.0 ? 1.0 : p;
}

void placer_stats_compare(const double *a, size_t na, const double *b, size_t nb, struct placer_stats_comparison *out) {
  out->median_a = placer_stats_median(a, na);
  out->median_b = placer_stats_median(b, nb);
  out->change = out->median_a != 0 ? out->median_b / out->median_a - 1.0 : NAN;
  placer_stats_bootstrap_change_ci(a, na, b, nb, PLACER_STATS_BOOTSTRAP_RESAMPLES, PLACER_STATS_BOOTSTRAP_SEED, 0.95,
                                   &out->ci_low, &out->ci_high);
  struct placer_stats_mann_whitney mw;
  placer_stats_mann_whitney(a, na, b, nb, &mw);
  out->p_value = mw.p_value;
  out->exact = mw.exact;
}

/* ------------------------------------------------------------------ paired */

static double norm_sf(double z) {
  return 0.5 * erfc(z / sqrt(2.0));
}

struct abs_rank {
  double v;
  size_t i;
};

static int cmp_abs_rank(const void *pa, const void *pb) {
  const struct abs_rank *a = pa, *b = pb;
  return (a->v > b->v) - (a->v < b->v);
}

void placer_stats_wilcoxon(const double *d, size_t n, struct placer_stats_wilcoxon *out) {
  *out = (struct placer_stats_wilcoxon){ .w_plus = NAN, .p_value = NAN };
  struct abs_rank *r = malloc((n ? n : 1) * sizeof(*r));
  double *rank = malloc((n ? n : 1) * sizeof(*rank));
  bool *pos = malloc((n ? n : 1) * sizeof(*pos));
  if (r == NULL || rank == NULL || pos == NULL)
    goto out;
  size_t m = 0;
  bool zeros = false;
  for (size_t i = 0; i < n; i++) {
    zeros |= d[i] == 0;
    if (!isnan(d[i]) && d[i] != 0) {
      r[m] = (struct abs_rank){ fabs(d[i]), m };
      pos[m] = d[i] > 0;
      m++;
    }
  }
  out->n = m;
  if (m == 0)
    goto out;
  qsort(r, m, sizeof(*r), cmp_abs_rank);
  bool ties = false;
  double tie_term = 0;
  for (size_t i = 0; i < m;) {
    size_t j = i + 1;
    while (j < m && r[j].v == r[i].v)
      j++;
    double t = (double)(j - i);
    if (j - i > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    for (size_t k = i; k < j; k++)
      rank[r[k].i] = (double)(i + j + 1) / 2.0; /* average of ranks i+1..j */
    i = j;
  }
  double w = 0;
  for (size_t i = 0; i < m; i++)
    if (pos[i])
      w += rank[i];
  out->w_plus = w;
  double mn = (double)m * (double)(m + 1) / 4.0;
  if (!ties && !zeros && m <= PLACER_STATS_WILCOXON_EXACT_MAX) {
    /* count[s]: sign patterns whose positive ranks sum to s */
    size_t top = m * (m + 1) / 2;
    double *count = calloc(top + 1, sizeof(*count));
    if (count == NULL)
      goto out;
    count[0] = 1;
    for (size_t k = 1; k <= m; k++)
      for (size_t s = top; s >= k; s--)
        count[s] += count[s - k];
    double total = ldexp(1.0, (int)m), le = 0, ge = 0;
    size_t wi = (size_t)w;
    for (size_t s = 0; s <= top; s++) {
      if (s <= wi)
        le += count[s];
      if (s >= wi)
        ge += count[s];
    }
    free(count);
    double p = 2.0 * fmin(le, ge) / total;
    out->p_value = p > 1 ? 1 : p;
    out->exact = true;
  } else {
    double var = ((double)m * (double)(m + 1) * (double)(2 * m + 1) - tie_term / 2.0) / 24.0;
    out->p_value = var > 0 ? fmin(1.0, 2.0 * norm_sf(fabs(w - mn) / sqrt(var))) : 1.0;
    out->exact = false;
  }
out:
  free(r);
  free(rank);
  free(pos);
}

int placer_stats_bootstrap_median_ci(const double *x, size_t n, unsigned resamples, uint64_t seed, double level,
                                     double *low, double *high) {
  *low = *high = NAN;
  if (n == 0 || resamples == 0)
    return 0;
  double *sample = malloc(n * sizeof(*sample)), *meds = malloc(resamples * sizeof(*meds));
  if (sample == NULL || meds == NULL) {
    free(sample);
    free(meds);
    return -1;
  }
  uint64_t state = seed;
  for (unsigned r = 0; r < resamples; r++) {
    for (size_t i = 0; i < n; i++) {
      unsigned __int128 prod = (unsigned __int128)placer_stats_splitmix64(&state) * n;
      sample[i] = x[(size_t)(prod >> 64)];
    }
    qsort(sample, n, sizeof(*sample), cmp_double);
    meds[r] = median_sorted(sample, n);
  }
  qsort(meds, resamples, sizeof(*meds), cmp_double);
  *low = placer_stats_percentile_sorted(meds, resamples, 100.0 * (1.0 - level) / 2.0);
  *high = placer_stats_percentile_sorted(meds, resamples, 100.0 * (1.0 + level) / 2.0);
  free(sample);
  free(meds);
  return 0;
}

int placer_stats_bootstrap_groups_ci(const size_t *n, size_t groups, unsigned resamples, uint64_t seed, double level,
                                     placer_stats_resampled statistic, void *arg, double *low, double *high) {
  *low = *high = NAN;
  size_t total = 0;
  for (size_t g = 0; g < groups; g++) {
    if (n[g] == 0)
      return 0;
    total += n[g];
  }
  if (groups == 0 || resamples == 0)
    return 0;
  size_t *all = malloc(total * sizeof(*all));
  size_t **picks = malloc(groups * sizeof(*picks));
  double *values = malloc(resamples * sizeof(*values));
  int rc = all && picks && values ? 0 : -1;
  uint64_t state = seed;
  bool defined = true;
  for (size_t g = 0, at = 0; rc == 0 && g < groups; at += n[g], g++)
    picks[g] = all + at;
  for (unsigned r = 0; rc == 0 && r < resamples && defined; r++) {
    for (size_t g = 0; g < groups; g++)
      for (size_t i = 0; i < n[g]; i++)
        picks[g][i] = random_index(&state, n[g]);
    values[r] = statistic((const size_t *const *)picks, n, groups, arg);
    defined = !isnan(values[r]);
  }
  if (rc == 0 && defined) {
    qsort(values, resamples, sizeof(*values), cmp_double);
    *low = placer_stats_percentile_sorted(values, resamples, 100.0 * (1.0 - level) / 2.0);
    *high = placer_stats_percentile_sorted(values, resamples, 100.0 * (1.0 + level) / 2.0);
  }
  free(all);
  free(picks);
  free(values);
  return rc;
}

void placer_stats_paired_compare(const double *a, const double *b, size_t n, struct placer_stats_paired *out) {
  *out = (struct placer_stats_paired){ .change = NAN, .ci_low = NAN, .ci_high = NAN, .p_value = NAN };
  double *ratio = malloc((n ? n : 1) * sizeof(*ratio)), *logr = malloc((n ? n : 1) * sizeof(*logr));
  size_t m = 0;
  for (size_t i = 0; ratio && logr && i < n; i++)
    if (a[i] > 0 && b[i] > 0 && !isnan(a[i]) && !isnan(b[i])) {
      ratio[m] = b[i] / a[i];
      logr[m++] = log(b[i] / a[i]);
    }
  out->n_pairs = m;
  if (m > 0) {
    out->change = placer_stats_median(ratio, m) - 1.0;
    double lo, hi;
    if (placer_stats_bootstrap_median_ci(ratio, m, PLACER_STATS_BOOTSTRAP_RESAMPLES, PLACER_STATS_BOOTSTRAP_SEED, 0.95,
                                         &lo, &hi) == 0 &&
        !isnan(lo)) {
      out->ci_low = lo - 1.0;
      out->ci_high = hi - 1.0;
    }
    struct placer_stats_wilcoxon wx;
    placer_stats_wilcoxon(logr, m, &wx);
    out->p_value = wx.p_value;
    out->exact = wx.exact;
  }
  free(ratio);
  free(logr);
}

/* ------------------------------------------------------------ design limits */

/* Every a below every b, all values distinct: the most extreme U there is. */
double placer_stats_mann_whitney_min_p(size_t na, size_t nb) {
  if (na == 0 || nb == 0)
    return 1.0;
  double *x = malloc((na + nb) * sizeof(*x));
  if (x == NULL)
    return NAN;
  for (size_t i = 0; i < na + nb; i++)
    x[i] = (double)i;
  struct placer_stats_mann_whitney mw;
  placer_stats_mann_whitney(x, na, x + na, nb, &mw);
  free(x);
  return mw.p_value;
}

/* Every difference positive, all sizes distinct: W+ at its maximum. */
double placer_stats_wilcoxon_min_p(size_t n_pairs) {
  if (n_pairs == 0)
    return 1.0;
  double *d = malloc(n_pairs * sizeof(*d));
  if (d == NULL)
    return NAN;
  for (size_t i = 0; i < n_pairs; i++)
    d[i] = (double)(i + 1);
  struct placer_stats_wilcoxon w;
  placer_stats_wilcoxon(d, n_pairs, &w);
  free(d);
  return w.p_value;
}
