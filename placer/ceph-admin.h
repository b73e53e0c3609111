/* A Ceph daemon's admin socket, what `ceph daemon NAME COMMAND` speaks
 * (src/common/admin_socket.cc): the command as JSON ended by a NUL; the
 * reply's length as 4 bytes, big-endian, then the reply.  Every exchange is
 * bounded by a deadline: a daemon stopped, gone or stuck is an answer
 * ("no answer in 2000 ms"), never a wait.  And which socket a running
 * daemon listens on, read from the daemon's own file descriptors, so that
 * status asks the process it checks and no other.  bench reads perf dumps
 * through it (bench/ceph-counters-read.c), status the MDS's cache setting
 * (apply-mds-status.c). */
#ifndef PLACER_CEPH_ADMIN_H
#define PLACER_CEPH_ADMIN_H

#include <stddef.h>
#include <sys/types.h>

/* COMMAND (a JSON object, "{\"prefix\": \"perf dump\"}") to the admin
 * socket SOCKET_PATH, within TIMEOUT_MS for the whole exchange.  With
 * PEER > 0 the socket must be process PEER's (SO_PEERCRED: the process
 * that listens on it), or nothing is sent.  0 and *OUT (malloc'ed,
 * NUL-ended, *OUT_LEN bytes before the NUL); 1 when there is no answer: no
 * socket, no listener, another process's socket, no whole reply in time, a
 * reply over MAX_REPLY bytes, or the daemon's own "ERROR:" (WHY, one line,
 * says which); -1 only when out of memory (errno ENOMEM). */
int placer_ceph_admin_command(const char *socket_path, pid_t peer, const char *command, unsigned timeout_ms,
                              size_t max_reply, char **out, size_t *out_len, char *why, size_t why_len);

/* The admin socket of running process PID into PATH: the listening Unix
 * socket it holds whose path ends in ".asok" (Ceph's default, "$run_dir/
 * $cluster-$name.asok"), else its only listening Unix socket with a path;
 * as this process reaches it (through /proc/PID/root when PID runs in
 * another mount namespace, as in a container).  0; 1 with WHY when it holds
 * none, or has gone. */
int placer_ceph_admin_socket_of(pid_t pid, char *path, size_t path_len, char *why, size_t why_len);

/* Option KEY of daemon PID as it runs: `config get KEY` over its own admin
 * socket (placer_ceph_admin_socket_of, checked to be PID's), its value as
 * the daemon prints it ("4294967296") into VALUE; SOCKET (may be NULL) gets
 * the socket asked.  0; 1 with WHY when it could not be read; -1 only when
 * out of memory. */
int placer_ceph_admin_config_get(pid_t pid, const char *key, unsigned timeout_ms, char *value, size_t value_len,
                                 char *socket, size_t socket_len, char *why, size_t why_len);

#endif
