/* CIDR networks: parse "ADDR/BITS" with inet_pton and compare prefixes. */
#include "lib/cidr.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

struct net {
  int family;
  unsigned char bytes[16];
  unsigned bits;
};

static bool parse_addr(const char *text, struct net *out) {
  memset(out, 0, sizeof(*out));
  if (inet_pton(AF_INET, text, out->bytes) == 1) {
    out->family = AF_INET;
    out->bits = 32;
    return true;
  }
  if (inet_pton(AF_INET6, text, out->bytes) == 1) {
    out->family = AF_INET6;
    out->bits = 128;
    return true;
  }
  return false;
}

static bool parse_net(const char *text, struct net *out) {
  char buf[64];
  size_t len = strlen(text);
  if (len == 0 || len >= sizeof(buf))
    return false;
  memcpy(buf, text, len + 1);
  char *slash = strchr(buf, '/');
  if (slash)
    *slash = '\0';
  if (!parse_addr(buf, out))
    return false;
  if (slash == NULL)
    return true;
  char *end = NULL;
  const char *digits = slash + 1;
  if (*digits < '0' || *digits > '9')
    return false;
  unsigned long bits = strtoul(digits, &end, 10);
  if (*end != '\0' || bits > out->bits)
    return false;
  out->bits = (unsigned)bits;
  return true;
}

bool placer_cidr_valid(const char *text) {
  struct net n;
  return text && parse_net(text, &n);
}

bool placer_cidr_contains(const char *cidr, const char *addr) {
  struct net n, a;
  if (cidr == NULL || addr == NULL || !parse_net(cidr, &n) || !parse_addr(addr, &a) || n.family != a.family)
    return false;
  unsigned full = n.bits / 8, rest = n.bits % 8;
  if (memcmp(n.bytes, a.bytes, full) != 0)
    return false;
  if (rest == 0)
    return true;
  unsigned char mask = (unsigned char)(0xff << (8 - rest));
  return (n.bytes[full] & mask) == (a.bytes[full] & mask);
}
