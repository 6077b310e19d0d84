/* The "unapproved program" of the exec techniques (E22-E25, E65, E68):
 * when it runs, it creates the marker file named in argv[1] or in
 * $ESC_MARKER (inside the workspace, so the run's profile lets it). */
#include "esc.h"

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : getenv("ESC_MARKER");
	if (!m)
		m = "PAYLOAD_RAN";
	int fd = open(m, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0) {
		printf("payload ran, marker %s: %s\n", m, strerror(errno));
		return 1;
	}
	if (write(fd, "payload\n", 8) != 8)
		return 1;
	close(fd);
	printf("payload ran\n");
	return 0;
}
