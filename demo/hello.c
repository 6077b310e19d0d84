/* The demo's "project": compiled by build.sh. */
#include <stdio.h>

int main(void)
{
	puts("hello from the capwatch demo");
	return 0;
}
