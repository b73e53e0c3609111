/* Fuzz what the watcher (placer/watch/) reads from others: the proc
 * connector's datagrams, the requests its metrics listener answers, a
 * metrics address, and the label values and floats its metrics write. */
#include <math.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "fuzz.h"
#include "watch/watch-internal.h"

static int count(void *ctx, const struct watch_event *ev, struct placer_error **err) {
  (void)err;
  FUZZ_CHECK(ev->kind < WATCH_EVENT_N_KINDS);
  (*(size_t *)ctx)++;
  return 0;
}

/* A label value as written: no raw newline, and every backslash and
 * double quote escaped. */
static void check_label(const char *escaped) {
  for (const char *p = escaped; *p; p++) {
    FUZZ_CHECK(*p != '\n');
    FUZZ_CHECK(*p != '"');
    if (*p == '\\') {
      FUZZ_CHECK(p[1] == '\\' || p[1] == '"' || p[1] == 'n');
      p++;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct placer_error *err = NULL;
  size_t emitted = 0, n_events = 0;
  int rc = watch_connector_decode(data, size, count, &emitted, &n_events, &err);
  FUZZ_CHECK((rc == 0) == (err == NULL));
  FUZZ_CHECK(err == NULL || strchr(err->msg, '\n') == NULL);
  FUZZ_CHECK(rc < 0 || emitted == n_events);
  placer_error_free(err);
  err = NULL;

  char *text = fuzz_string(data, size);
  bool head = false;
  enum watch_http_route route = watch_http_route(text, &head);
  FUZZ_CHECK(route <= WATCH_HTTP_TOO_LONG);
  FUZZ_CHECK(!head || route == WATCH_HTTP_METRICS || route == WATCH_HTTP_ROOT || route == WATCH_HTTP_NOT_FOUND);

  struct sockaddr_storage ss;
  socklen_t len = 0;
  rc = watch_http_parse_address(text, &ss, &len, &err);
  FUZZ_CHECK((rc == 0) == (err == NULL));
  FUZZ_CHECK(rc < 0 || len == sizeof(struct sockaddr_in) || len == sizeof(struct sockaddr_in6));
  FUZZ_CHECK(err == NULL || (err->exit_code == PLACER_EXIT_USAGE && strchr(err->msg, '\n') == NULL));
  placer_error_free(err);

  char *label = watch_metrics_escape_label(text);
  FUZZ_CHECK(label != NULL);
  check_label(label);
  free(label);
  char *help = watch_metrics_escape_help(text);
  FUZZ_CHECK(help != NULL && strchr(help, '\n') == NULL);
  free(help);

  double v = strtod(text, NULL);
  char buf[32];
  watch_metrics_format_double(v, buf);
  double back = strtod(buf, NULL);
  FUZZ_CHECK(isnan(v) ? isnan(back) : back == v);
  free(text);
  return 0;
}
