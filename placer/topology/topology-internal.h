/* Shared between the topology loader files; not part of the public API. */
#ifndef PLACER_TOPOLOGY_INTERNAL_H
#define PLACER_TOPOLOGY_INTERNAL_H

#include "topology/topology.h"

/* Block devices and NICs, with locality; live extras from /sys. */
int placer_topology_collect_io(struct placer_topology *topo);
void placer_topology_free_io(struct placer_topology *topo);
/* Live: the addresses each NIC holds and ceph.conf's storage networks. */
int placer_topology_collect_net(struct placer_topology *topo);
void placer_topology_free_net(struct placer_topology *topo);

#endif
