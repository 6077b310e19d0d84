#include <stdio.h>
#include "greet.h"

int main(void)
{
	unsigned long f[20];

	fib(20, f);
	printf("%s\n", greeting());
	printf("checksum %lu\n", checksum(greeting()));
	for (unsigned i = 0; i < 20; i++)
		printf("%lu%c", f[i], i == 19 ? '\n' : ' ');
	return 0;
}
