/* A test process for status_locality_v2_guest.sh (built static, run inside
 * the guest): waits until TRIGGER exists, then maps FILE shared, reads every
 * page (they stay where the file's page cache is), prints "mapped N bytes"
 * and waits to be killed.  Mapping only after placer has placed it means no
 * cpuset migration ever moves those pages: they are the remote memory. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: mapfile FILE TRIGGER\n");
    return 2;
  }
  while (access(argv[2], F_OK) != 0)
    usleep(20000);
  int fd = open(argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0) {
    perror(argv[1]);
    return 1;
  }
  volatile const char *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  unsigned long sum = 0;
  for (off_t i = 0; i < st.st_size; i += 4096)
    sum += (unsigned char)p[i];
  printf("mapped %lld bytes (sum %lu)\n", (long long)st.st_size, sum);
  fflush(stdout);
  for (;;)
    pause();
}
