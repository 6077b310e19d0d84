/* E22: copy a program into a memfd and execveat(memfd, "", AT_EMPTY_PATH):
 * process_spawn with no path on disk. */
#include "esc.h"
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e22_memfd_exec PROGRAM MARKER");
	int src = open(argv[1], O_RDONLY);
	struct stat st;
	if (src < 0 || fstat(src, &st) < 0)
		return 2;
	int m = (int)syscall(SYS_memfd_create, "x", 0);
	if (m < 0) {
		printf("memfd_create: %s\n", strerror(errno));
		return 1;
	}
	if (sendfile(m, src, NULL, (size_t)st.st_size) != st.st_size)
		return 2;
	char *args[] = { "payload", argv[2], NULL };
	char *envp[] = { NULL };
	syscall(SYS_execveat, m, "", args, envp, AT_EMPTY_PATH);
	printf("execveat: %s\n", strerror(errno));
	return 1;
}
