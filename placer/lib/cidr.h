/* IP networks in CIDR notation ("10.0.0.0/24", "fd00::/64") and whether an
 * address lies in one: how a storage network names its NICs. */
#ifndef PLACER_CIDR_H
#define PLACER_CIDR_H

#include <stdbool.h>

/* True when TEXT is an IPv4 or IPv6 network "ADDR/BITS" (or a bare address,
 * taken as /32 or /128). */
bool placer_cidr_valid(const char *text);
/* True when ADDR (an IPv4 or IPv6 address) lies in the network CIDR; false
 * when either does not parse or their families differ. */
bool placer_cidr_contains(const char *cidr, const char *addr);

#endif
