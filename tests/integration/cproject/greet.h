#ifndef GREET_H
#define GREET_H
/* A tiny multi-file program whose output is deterministic, built by the
 * integration test bare and under capwatch to compare the results. */
unsigned long checksum(const char *s);
const char *greeting(void);
void fib(unsigned n, unsigned long *out);
#endif
