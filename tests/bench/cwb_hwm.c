/* cwb_hwm.so: the supervisor's own peak memory and CPU, for the benchmark.
 *
 * LD_PRELOADed into capwatch or strace (never into the workload: capwatch
 * drops LD_PRELOAD and CWB_HWM_FILE from the command's sanitized
 * environment; strace is run with -E LD_PRELOAD -E CWB_HWM_FILE). When a
 * process that has it leaves through exit(), it appends one line to
 * CWB_HWM_FILE (forked helpers that _exit() write nothing):
 *   pid vmhwm_kb user_s sys_s maxrss_kb
 * VmHWM (/proc/self/status) is the peak RSS of this process's own address
 * space since its exec; CPU from getrusage(RUSAGE_SELF) is this process
 * alone, none of its children. wait4() cannot give either: its ru_maxrss is
 * the max over the reaped tree, and even RUSAGE_SELF's ru_maxrss (written
 * last, for reference) carries the pre-exec image of the forked parent. cwb_run --preload
 * puts this library into the measured command only, not into cwb_run.
 *
 * A supervisor that leaves by _exit() or a signal writes nothing; the
 * driver then reports the supervisor's peak as unknown. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

__attribute__((destructor)) static void cwb_hwm_report(void)
{
	const char *file = getenv("CWB_HWM_FILE");
	if (!file || !*file)
		return;
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return;
	long hwm = -1;
	char buf[4096];
	int sfd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (sfd >= 0) {
		ssize_t k = read(sfd, buf, sizeof(buf) - 1);
		close(sfd);
		if (k > 0) {
			buf[k] = '\0';
			const char *p = strstr(buf, "VmHWM:");
			if (p)
				hwm = strtol(p + 6, NULL, 10);
		}
	}
	char line[160];
	int n = snprintf(line, sizeof(line), "%d %ld %.6f %.6f %ld\n", (int)getpid(), hwm,
			 (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
			 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss);
	int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (n > 0 && write(fd, line, (size_t)n) < 0) {
		/* nothing to do: the driver reports "unknown" */
	}
	close(fd);
}
