/* The number of elements of a fixed-size array (not of a pointer). */
#ifndef PLACER_ARRAY_H
#define PLACER_ARRAY_H

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

#endif
