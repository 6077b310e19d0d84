/* A process outside the supervised tree, started by the test. It prints
 * "PID ADDR" (ADDR: a word of its memory) to the file argv[1], then waits;
 * when the word changes (process_vm_writev, /proc/PID/mem, ptrace) it
 * creates argv[2] and exits. It also exits after argv[3] seconds. */
#include "esc.h"
#include <signal.h>
#include <stdint.h>
#include <time.h>

static volatile uint64_t word = 0x4e41454c43ULL; /* "CLEAN" */

int main(int argc, char **argv)
{
	esc_usage(argc, 4, "victim INFO HITFILE SECONDS");
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "%d %p\n", (int)getpid(), (void *)&word);
	fclose(f);
	time_t end = time(NULL) + atoi(argv[3]);
	while (time(NULL) < end) {
		if (word != 0x4e41454c43ULL) {
			int fd = open(argv[2], O_WRONLY | O_CREAT, 0644);
			close(fd);
			return 0;
		}
		usleep(10000);
	}
	return 0;
}
