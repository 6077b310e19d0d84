#ifndef CAPWATCH_PRELOAD_PROTO_H
#define CAPWATCH_PRELOAD_PROTO_H
/* The annotation channel between libcapwatch-preload.so (the sender, inside
 * every dynamically linked process of the supervised tree) and the
 * supervisor (supervisor/annot.c, the receiver).
 *
 * Transport: one end of a SOCK_DGRAM unix socketpair created by the
 * supervisor, inherited by the command at fd CW_ANNOT_FD (named again in the
 * environment as CW_ANNOT_ENV_FD). Why a datagram socketpair:
 *   - no address: send() on it is a sendto() with a NULL address, which the
 *     seccomp filter does not notify, so an annotation costs the target one
 *     syscall and never a round trip through the supervisor;
 *   - message boundaries: a short or garbled message cannot desynchronise
 *     the ones after it (no stream to resynchronise);
 *   - SO_PASSCRED on the receiving end: the kernel attaches the sender's pid
 *     to each datagram, so messages are attributed by the kernel's view of
 *     the sender, not by what the message says;
 *   - the queue is bounded by the kernel (max_dgram_qlen), and the sender
 *     uses MSG_DONTWAIT: a slow or flooded supervisor never blocks a target.
 *
 * Everything in a message is the target's claim. The supervisor validates
 * the layout, caps every field, rate-limits per pid and uses the content
 * only as an annotation of events it observed itself (host names, call
 * sites). Nothing here can reach a policy decision.
 *
 * Layout (native endianness; sender and receiver run on the same machine):
 *   struct cw_annot_hdr
 *   uint64_t frames[nframes]          return addresses, innermost first
 *   struct cw_annot_addr addrs[naddrs]
 *   unsigned char raw[rawlen]         connect/sendto: the sockaddr as passed
 *   char name[namelen]                host name, no NUL
 *   char text[textlen]                path or command; ends at its first NUL
 *                                     (the preload copies up to the end of
 *                                     the string's page, see preload.c)
 * and the datagram is exactly that long. */
#include <stdint.h>

#define CW_ANNOT_MAGIC 0x31415743u /* "CWA1" read as little-endian bytes */
#define CW_ANNOT_FD 1000
/* Its value: FD:INODE, or FD:INODE:k when capwatch decides read-only opens
 * in the kernel (CAPWATCH_KERNEL_READS): those are then not annotated. */
#define CW_ANNOT_ENV_FD "CAPWATCH_ANNOT_FD"
#define CW_ANNOT_MAX_FRAMES 24
#define CW_ANNOT_MAX_ADDRS 8
#define CW_ANNOT_MAX_NAME 253 /* a DNS name */
#define CW_ANNOT_MAX_TEXT 1024
#define CW_ANNOT_MAX_RAW 128 /* sizeof(struct sockaddr_storage) */
#define CW_ANNOT_MAX_MSG 2048
/* capwatch keeps at most BURST messages of a process at once and RATE a
 * second after that, and drops the rest (a token bucket per pid). */
#define CW_ANNOT_BURST 2000.0
#define CW_ANNOT_RATE 1000.0

enum cw_annot_type {
	CW_ANNOT_HELLO = 1,    /* the preload is loaded in this process */
	CW_ANNOT_RESOLVED = 2, /* name -> addrs (getaddrinfo, gethostbyname*) */
	CW_ANNOT_NET = 3,      /* connect/sendto to addrs[0], name if known */
	CW_ANNOT_EXEC = 4,     /* execve family / spawn: text = program or command */
	CW_ANNOT_FILE = 5,     /* open, fopen, unlink, rename: text = path */
	CW_ANNOT__MAX = CW_ANNOT_FILE,
};

/* Which wrapper sent it (shown as the call's name in the report). */
enum cw_annot_func {
	CW_AF_NONE = 0,
	CW_AF_GETADDRINFO, CW_AF_GETHOSTBYNAME, CW_AF_GETHOSTBYNAME2,
	CW_AF_GETHOSTBYNAME_R, CW_AF_GETHOSTBYNAME2_R,
	CW_AF_CONNECT, CW_AF_SENDTO,
	CW_AF_EXECVE, CW_AF_EXECVP, CW_AF_EXECV, CW_AF_EXECVPE, CW_AF_POSIX_SPAWN,
	CW_AF_POSIX_SPAWNP, CW_AF_SYSTEM, CW_AF_POPEN,
	CW_AF_OPEN, CW_AF_OPENAT, CW_AF_FOPEN, CW_AF_UNLINK, CW_AF_UNLINKAT,
	CW_AF_RENAME, CW_AF_RENAMEAT,
	CW_AF__COUNT,
};

struct cw_annot_hdr {
	uint32_t magic;
	uint16_t type;     /* enum cw_annot_type */
	uint16_t func;     /* enum cw_annot_func */
	int32_t tid;       /* the sender's claim; checked against the tree */
	uint16_t nframes;  /* <= CW_ANNOT_MAX_FRAMES */
	uint16_t naddrs;   /* <= CW_ANNOT_MAX_ADDRS */
	uint16_t namelen;  /* <= CW_ANNOT_MAX_NAME */
	uint16_t textlen;  /* <= CW_ANNOT_MAX_TEXT */
	uint16_t rawlen;   /* <= CW_ANNOT_MAX_RAW */
	uint16_t reserved; /* 0 */
	uint32_t flags;    /* CW_ANNOT_F_* */
};

#define CW_ANNOT_F_CALLSITE_ONLY 1u /* frames[0] is the caller's return address only */

struct cw_annot_addr {
	uint16_t family;   /* AF_INET, AF_INET6 */
	uint16_t port;     /* network byte order; 0 when unknown */
	uint8_t addr[16];  /* 4 bytes used for AF_INET */
};

#endif
