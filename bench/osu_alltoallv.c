/* MPI_Alltoallv latency on an irregular pattern, in the style of the OSU micro-benchmarks'
 * osu_alltoallv: for each message size, warm-up calls, then timed calls, one line
 *   Size  Avg Latency(us)  Min Latency(us)  Max Latency(us)  Iterations  Median Latency(us)
 * where a call's latency is the slowest rank's (each call starts after an MPI_Barrier, as in
 * OSU) and Avg/Min/Max/Median are over the timed calls.
 *
 * Plain C and MPI only, no choreo code: it is the "unmodified program" that choreo's
 * interposition library (libchoreo_pmpi.so, or its archive linked before MPI under SMPI)
 * takes MPI_Alltoallv from. Every message of the pattern gets the same size; the data of the
 * first call of every size is checked byte by byte against a formula (exit 1 on a mismatch).
 *
 * usage: osu_alltoallv [--pattern gather|scatter|alltoall|triangle|FILE] [-m [MIN:]MAX]
 *                      [-i ITERATIONS] [-x WARMUP] [-h]
 * FILE is a choreo pattern (choreo.pattern/1 JSON, `choreo pattern ... -o FILE`): who sends
 * to whom; its byte counts only say which messages exist (0 bytes: none). Its ranks must be
 * the job's. Sizes go from MIN doubling up to MAX, plus 64512 B (63 KiB, paper 000's size)
 * when it lies between them; default 1:65536. */
#define _POSIX_C_SOURCE 200112L /* posix_memalign, sysconf */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_MIN 1L
#define DEFAULT_MAX 65536L
#define PAPER_SIZE 64512L /* 63 KiB, paper 000's largest eager message */

/* Which messages this rank sends and receives (one row and one column of the pattern). */
typedef struct {
  int ranks;
  long messages; /* in the whole pattern */
  char *sends_to, *receives_from;
} Pattern;

typedef struct {
  const char *pattern;
  long min_size, max_size;
  int iterations, warmup;
} Options;

static void usage(FILE *out) {
  fprintf(out,
          "usage: osu_alltoallv [--pattern gather|scatter|alltoall|triangle|FILE] [-m [MIN:]MAX]\n"
          "                     [-i ITERATIONS] [-x WARMUP] [-h]\n"
          "  --pattern P  built-in pattern on all ranks (gather/scatter: root 0; triangle: every\n"
          "               rank sends to every lower rank), or a choreo.pattern/1 JSON file\n"
          "               (default alltoall)\n"
          "  -m [MIN:]MAX message sizes in bytes: MIN doubling up to MAX, plus 64512 when in\n"
          "               range (default 1:65536)\n"
          "  -i N         timed calls per size (default 100)\n"
          "  -x N         warm-up calls per size, not timed (default 10)\n"
          "Prints, per size, the latency of a call (the slowest rank's) in microseconds:\n"
          "average, minimum, maximum and median over the timed calls.\n");
}

/* ---- A small JSON reader: just enough of choreo.pattern/1 ---- */

typedef struct {
  const char *at, *end;
  const char *error;
} Json;

static void skip_space(Json *j) {
  while (j->at < j->end && (*j->at == ' ' || *j->at == '\n' || *j->at == '\r' || *j->at == '\t'))
    ++j->at;
}

static int fail(Json *j, const char *what) {
  if (!j->error) j->error = what;
  return 0;
}

static int expect(Json *j, char c) {
  skip_space(j);
  if (j->at >= j->end || *j->at != c) return fail(j, "malformed JSON");
  ++j->at;
  return 1;
}

/* After an item of an object or array closed by `close`: 1 when another follows (a comma),
 * 0 at the close, -1 on malformed input. */
static int more_items(Json *j, char close) {
  skip_space(j);
  if (j->at < j->end && *j->at == ',') {
    ++j->at;
    return 1;
  }
  return expect(j, close) ? 0 : -1;
}

/* A string's characters (escapes left as they are: keys and formats need none). */
static int read_string(Json *j, const char **text, size_t *length) {
  if (!expect(j, '"')) return 0;
  const char *start = j->at;
  while (j->at < j->end && *j->at != '"') j->at += (*j->at == '\\') ? 2 : 1;
  if (j->at >= j->end) return fail(j, "unterminated string");
  *text = start;
  *length = (size_t)(j->at - start);
  ++j->at;
  return 1;
}

static int read_long(Json *j, long *value) {
  skip_space(j);
  char *stop = NULL;
  *value = strtol(j->at, &stop, 10);
  if (stop == j->at) return fail(j, "expected a whole number");
  if (stop < j->end && (*stop == '.' || *stop == 'e' || *stop == 'E'))
    return fail(j, "expected a whole number");
  j->at = stop;
  return 1;
}

static int skip_value(Json *j) {
  skip_space(j);
  if (j->at >= j->end) return fail(j, "malformed JSON");
  const char c = *j->at;
  if (c == '"') {
    const char *s;
    size_t n;
    return read_string(j, &s, &n);
  }
  if (c == '{' || c == '[') {
    const char close = c == '{' ? '}' : ']';
    ++j->at;
    skip_space(j);
    if (j->at < j->end && *j->at == close) {
      ++j->at;
      return 1;
    }
    int more = 1;
    while (more == 1) {
      if (c == '{') {
        const char *s;
        size_t n;
        if (!read_string(j, &s, &n) || !expect(j, ':')) return 0;
      }
      if (!skip_value(j)) return 0;
      more = more_items(j, close);
    }
    return more == 0;
  }
  while (j->at < j->end && strchr(",}] \n\r\t", *j->at) == NULL) ++j->at; /* number, literal */
  return 1;
}

static int is_key(const char *text, size_t length, const char *key) {
  return strlen(key) == length && strncmp(text, key, length) == 0;
}

/* Reads the top-level "format" (checked) and "ranks"; in pass 2 also the "messages", keeping
 * this rank's row and column. Returns 0 (j->error set) on malformed input. */
static int read_pattern_json(Json *j, Pattern *p, int me, int pass) {
  int seen_format = 0;
  if (!expect(j, '{')) return 0;
  skip_space(j);
  if (j->at < j->end && *j->at == '}') return fail(j, "empty object");
  for (;;) {
    const char *key;
    size_t length;
    if (!read_string(j, &key, &length) || !expect(j, ':')) return 0;
    if (is_key(key, length, "format")) {
      const char *value;
      size_t n;
      if (!read_string(j, &value, &n)) return 0;
      if (!is_key(value, n, "choreo.pattern/1"))
        return fail(j, "not a choreo.pattern/1 file (its \"format\" says otherwise)");
      seen_format = 1;
    } else if (is_key(key, length, "ranks")) {
      long ranks;
      if (!read_long(j, &ranks)) return 0;
      if (ranks < 1 || ranks > 1 << 24) return fail(j, "\"ranks\" out of range");
      p->ranks = (int)ranks;
    } else if (is_key(key, length, "messages") && pass == 2) {
      if (!expect(j, '[')) return 0;
      skip_space(j);
      if (j->at < j->end && *j->at == ']') {
        ++j->at;
      } else {
        for (;;) {
          long src = -1, dst = -1, bytes = 1;
          if (!expect(j, '{')) return 0;
          for (;;) {
            const char *k;
            size_t n;
            if (!read_string(j, &k, &n) || !expect(j, ':')) return 0;
            if (is_key(k, n, "src")) {
              if (!read_long(j, &src)) return 0;
            } else if (is_key(k, n, "dst")) {
              if (!read_long(j, &dst)) return 0;
            } else if (is_key(k, n, "bytes")) {
              if (!read_long(j, &bytes)) return 0;
            } else if (!skip_value(j)) {
              return 0;
            }
            const int more = more_items(j, '}');
            if (more < 0) return 0;
            if (more == 0) break;
          }
          if (src < 0 || src >= p->ranks || dst < 0 || dst >= p->ranks || src == dst)
            return fail(j, "a message's src or dst is not a rank of the pattern, or src == dst");
          if (bytes > 0) {
            ++p->messages;
            if (src == me) p->sends_to[dst] = 1;
            if (dst == me) p->receives_from[src] = 1;
          }
          const int more = more_items(j, ']');
          if (more < 0) return 0;
          if (more == 0) break;
        }
      }
    } else if (!skip_value(j)) {
      return 0;
    }
    const int more = more_items(j, '}');
    if (more < 0) return 0;
    if (more == 0) break;
  }
  if (!seen_format) return fail(j, "no \"format\": \"choreo.pattern/1\"");
  if (p->ranks == 0) return fail(j, "no \"ranks\"");
  return 1;
}

/* Reads FILE into `p` for rank `me`; returns an error message or NULL. */
static const char *load_pattern_file(const char *path, Pattern *p, int me, int size) {
  FILE *f = fopen(path, "rb");
  if (!f) return "cannot open the pattern file";
  fseek(f, 0, SEEK_END);
  const long length = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)length + 1);
  if (!text || fread(text, 1, (size_t)length, f) != (size_t)length) {
    fclose(f);
    free(text);
    return "cannot read the pattern file";
  }
  fclose(f);
  text[length] = '\0'; /* strtol stops there */
  Json j = {text, text + length, NULL};
  p->ranks = 0;
  if (read_pattern_json(&j, p, me, 1)) { /* pass 1: ranks */
    if (p->ranks != size) {
      j.error = "the pattern's ranks differ from the job's (run as many ranks as the pattern has)";
    } else {
      p->sends_to = calloc((size_t)size, 1);
      p->receives_from = calloc((size_t)size, 1);
      j.at = text;
      read_pattern_json(&j, p, me, 2); /* pass 2: messages */
    }
  }
  free(text);
  return j.error;
}

static const char *make_pattern(const char *name, Pattern *p, int me, int size) {
  memset(p, 0, sizeof *p);
  const int gather = strcmp(name, "gather") == 0, scatter = strcmp(name, "scatter") == 0;
  const int alltoall = strcmp(name, "alltoall") == 0, triangle = strcmp(name, "triangle") == 0;
  if (!gather && !scatter && !alltoall && !triangle) return load_pattern_file(name, p, me, size);
  p->ranks = size;
  p->sends_to = calloc((size_t)size, 1);
  p->receives_from = calloc((size_t)size, 1);
  for (int s = 0; s < size; ++s)
    for (int d = 0; d < size; ++d) {
      const int message =
          s != d && ((gather && d == 0) || (scatter && s == 0) || alltoall || (triangle && d < s));
      if (!message) continue;
      ++p->messages;
      if (s == me) p->sends_to[d] = 1;
      if (d == me) p->receives_from[s] = 1;
    }
  return NULL;
}

/* ---- Arguments ---- */

static int parse_count(const char *text, long *value) {
  char *stop = NULL;
  *value = strtol(text, &stop, 10);
  return stop != text && *stop == '\0';
}

/* Returns an error message, or NULL; *help set for -h. */
static const char *parse_options(int argc, char **argv, Options *o, int *help) {
  o->pattern = "alltoall";
  o->min_size = DEFAULT_MIN;
  o->max_size = DEFAULT_MAX;
  o->iterations = 100;
  o->warmup = 10;
  *help = 0;
  for (int a = 1; a < argc; ++a) {
    const char *arg = argv[a];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      *help = 1;
      return NULL;
    }
    if (a + 1 >= argc) return "an option is missing its value (see --help)";
    const char *value = argv[++a];
    long number = 0;
    if (strcmp(arg, "--pattern") == 0) {
      o->pattern = value;
    } else if (strcmp(arg, "-m") == 0) {
      const char *colon = strchr(value, ':');
      char min_text[32];
      if (colon) {
        const size_t n = (size_t)(colon - value);
        if (n >= sizeof min_text) return "-m: use [MIN:]MAX, sizes in bytes";
        memcpy(min_text, value, n);
        min_text[n] = '\0';
        if (!parse_count(min_text, &o->min_size) || !parse_count(colon + 1, &o->max_size))
          return "-m: use [MIN:]MAX, sizes in bytes";
      } else if (!parse_count(value, &o->max_size)) {
        return "-m: use [MIN:]MAX, sizes in bytes";
      }
      if (o->min_size < 1 || o->max_size < o->min_size || o->max_size > (1L << 30))
        return "-m: sizes must satisfy 1 <= MIN <= MAX <= 2^30";
    } else if (strcmp(arg, "-i") == 0) {
      if (!parse_count(value, &number) || number < 1 || number > 10000000)
        return "-i: give the number of timed calls, at least 1";
      o->iterations = (int)number;
    } else if (strcmp(arg, "-x") == 0) {
      if (!parse_count(value, &number) || number < 0 || number > 10000000)
        return "-x: give the number of warm-up calls, 0 or more";
      o->warmup = (int)number;
    } else {
      return "unknown option (see --help)";
    }
  }
  return NULL;
}

/* ---- The benchmark ---- */

/* The byte k of the message src -> dst at message size `size`. */
static unsigned char expected_byte(int src, int dst, long k, long size) {
  return (unsigned char)(src * 7 + dst * 13 + k * 3 + (k >> 8) + size * 11);
}

static void *page_aligned(size_t bytes) {
  void *p = NULL;
  const long page = sysconf(_SC_PAGESIZE);
  if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, bytes) != 0) return NULL;
  return p;
}

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int me = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  Options o;
  int help = 0;
  const char *error = parse_options(argc, argv, &o, &help);
  Pattern p;
  memset(&p, 0, sizeof p);
  const char *about = "";
  if (!error && !help) {
    error = make_pattern(o.pattern, &p, me, size);
    about = o.pattern;
  }
  if (error || help) {
    if (me == 0) {
      if (error) fprintf(stderr, "osu_alltoallv: %s%s%s\n", about, *about ? ": " : "", error);
      if (help) usage(stdout);
    }
    MPI_Finalize();
    return error ? 1 : 0;
  }

  int *sendcounts = calloc((size_t)size, sizeof(int)), *sdispls = calloc((size_t)size, sizeof(int));
  int *recvcounts = calloc((size_t)size, sizeof(int)), *rdispls = calloc((size_t)size, sizeof(int));
  int sends = 0, receives = 0;
  for (int r = 0; r < size; ++r) {
    sends += p.sends_to[r];
    receives += p.receives_from[r];
  }
  const long buffer_size = o.max_size; /* the largest message */
  if ((double)buffer_size * (sends > receives ? sends : receives) > 2147483647.0) {
    if (me == 0)
      fprintf(stderr, "osu_alltoallv: -m MAX too large: a rank's buffer exceeds 2 GiB\n");
    MPI_Finalize();
    return 1;
  }
  /* Page-aligned, as the OSU benchmarks align theirs: with malloc the buffers' offsets follow
   * whatever else the process allocated first, and a preloaded library (even libstdc++ alone)
   * shifted MPICH's 64 KiB shared-memory copies by 4% on this machine. */
  unsigned char *sendbuf = page_aligned((size_t)(buffer_size * sends + 1));
  unsigned char *recvbuf = page_aligned((size_t)(buffer_size * receives + 1));
  if (!sendbuf || !recvbuf) {
    fprintf(stderr, "osu_alltoallv: rank %d: out of memory for %ld-byte messages\n", me,
            buffer_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  double *times = malloc(sizeof(double) * (size_t)o.iterations);
  double *slowest = malloc(sizeof(double) * (size_t)o.iterations);

  if (me == 0) {
    printf("# OSU-style MPI_Alltoallv Latency Test (choreo bench/osu_alltoallv.c)\n");
    printf("# pattern %s: %d ranks, %ld messages, every message of Size bytes\n", o.pattern, size,
           p.messages);
    printf("# latency of a call = the slowest rank's; over %d timed calls after %d warm-up\n",
           o.iterations, o.warmup);
    printf("%-10s%18s%18s%18s%12s%20s\n", "# Size", "Avg Latency(us)", "Min Latency(us)",
           "Max Latency(us)", "Iterations", "Median Latency(us)");
    fflush(stdout);
  }

  /* Sizes: MIN, 2 MIN, 4 MIN, ... up to MAX, and 64512 in its place when in range. */
  long sizes[64];
  int size_count = 0;
  for (long s = o.min_size; s <= o.max_size; s *= 2) {
    if (PAPER_SIZE > (size_count ? sizes[size_count - 1] : 0) && PAPER_SIZE < s &&
        PAPER_SIZE >= o.min_size)
      sizes[size_count++] = PAPER_SIZE;
    sizes[size_count++] = s;
  }
  if (PAPER_SIZE > sizes[size_count - 1] && PAPER_SIZE <= o.max_size)
    sizes[size_count++] = PAPER_SIZE;

  int failed = 0;
  for (int which = 0; which < size_count && !failed; ++which) {
    const long msg = sizes[which];
    int at_send = 0, at_receive = 0;
    for (int r = 0; r < size; ++r) {
      sendcounts[r] = p.sends_to[r] ? (int)msg : 0;
      sdispls[r] = at_send;
      at_send += sendcounts[r];
      recvcounts[r] = p.receives_from[r] ? (int)msg : 0;
      rdispls[r] = at_receive;
      at_receive += recvcounts[r];
      for (long k = 0; k < sendcounts[r]; ++k)
        sendbuf[sdispls[r] + k] = expected_byte(me, r, k, msg);
      for (long k = 0; k < recvcounts[r]; ++k) /* never the expected byte */
        recvbuf[rdispls[r] + k] = (unsigned char)~expected_byte(r, me, k, msg);
    }

    for (int i = 0; i < o.warmup + o.iterations; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime();
      MPI_Alltoallv(sendbuf, sendcounts, sdispls, MPI_CHAR, recvbuf, recvcounts, rdispls, MPI_CHAR,
                    MPI_COMM_WORLD);
      const double stop = MPI_Wtime();
      if (i >= o.warmup) times[i - o.warmup] = stop - start;
      if (i > 0) continue;
      int wrong = 0;
      for (int r = 0; r < size && !wrong; ++r)
        for (long k = 0; k < recvcounts[r]; ++k)
          if (recvbuf[rdispls[r] + k] != expected_byte(r, me, k, msg)) {
            fprintf(stderr,
                    "osu_alltoallv: rank %d: wrong data from rank %d at size %ld, byte %ld: "
                    "got %d, expected %d\n",
                    me, r, msg, k, recvbuf[rdispls[r] + k], expected_byte(r, me, k, msg));
            wrong = 1;
            break;
          }
      MPI_Allreduce(&wrong, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (failed) break;
    }
    if (failed) break;

    MPI_Reduce(times, slowest, o.iterations, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0) {
      double sum = 0;
      for (int i = 0; i < o.iterations; ++i) sum += slowest[i];
      qsort(slowest, (size_t)o.iterations, sizeof(double), compare_doubles);
      const int n = o.iterations;
      const double median = n % 2 ? slowest[n / 2] : (slowest[n / 2 - 1] + slowest[n / 2]) / 2;
      printf("%-10ld%18.2f%18.2f%18.2f%12d%20.2f\n", msg, 1e6 * sum / n, 1e6 * slowest[0],
             1e6 * slowest[n - 1], n, 1e6 * median);
      fflush(stdout);
    }
  }
  if (failed && me == 0) fprintf(stderr, "osu_alltoallv: received data is wrong (see above)\n");

  free(slowest);
  free(times);
  free(recvbuf);
  free(sendbuf);
  free(rdispls);
  free(recvcounts);
  free(sdispls);
  free(sendcounts);
  free(p.receives_from);
  free(p.sends_to);
  MPI_Finalize();
  return failed ? 1 : 0;
}
