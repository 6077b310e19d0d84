/* Placeholder until the supervisor lands (issue 3). */
#include <stdio.h>
int main(void)
{
	fprintf(stderr, "capwatch: the supervisor is not built yet\n");
	return 125;
}
