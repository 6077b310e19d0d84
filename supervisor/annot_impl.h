#ifndef CAPWATCH_ANNOT_IMPL_H
#define CAPWATCH_ANNOT_IMPL_H
/* What the parts of the preload channel's receiving side share (annot.h
 * is the interface): annot.c (putting the library into the command, and
 * telling at an exec whether it is there), annot_channel.c (receiving,
 * validating, rate limiting, storing), annot_symbols.c (call sites named
 * from the ELF files the kernel mapped), annot_match.c (which stored
 * annotation belongs to an event). */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include "hmap.h"
#include "preload/proto.h"
#include "supervisor/annot.h"

#define LIB_NAME "libcapwatch-preload.so"

/* Caps. */
#define RING 1024            /* recent call annotations */
#define NAMES 512            /* recent name -> address resolutions */
#define BUCKETS 1024         /* rate-limit entries (pids) */
#define BURST CW_ANNOT_BURST /* messages a pid may send at once */
#define RATE CW_ANNOT_RATE   /* ... and per second after that (proto.h) */
#define DRAIN_MAX 512        /* messages read per call */
#define SPAWN_WINDOW 5.0     /* seconds a spawn annotation waits for its exec */
#define INTERP_CACHE 64      /* executables whose interpreter is known (annot.c) */
#define DRAIN_BATCH 16       /* datagrams per recvmmsg (annot_channel.c) */

/* One stored call annotation. */
struct ann {
	pid_t tgid, tid;
	uint16_t type, func;
	uint32_t flags;
	double time;
	bool used, valid;
	uint16_t nframes, naddrs;
	uint64_t frames[CW_ANNOT_MAX_FRAMES];
	struct cw_annot_addr addr; /* NET: the destination */
	char name[CW_ANNOT_MAX_NAME + 1];
	char text[CW_ANNOT_MAX_TEXT + 1];
	uint16_t textlen;
	bool text_whole;           /* false: a prefix (cut at a page end) */
	bool unix_dest;            /* NET to an AF_UNIX address */
};

struct name_rec {
	pid_t tgid;
	struct cw_annot_addr a;
	char name[CW_ANNOT_MAX_NAME + 1];
};

/* Per sending pid, in a keyed map (the pids are the command's to choose,
 * by forking until it gets them). */
struct bucket {
	double tokens, last;
	unsigned long long dropped;
	bool noted_flood, noted_bad;
	/* A hello the process's current image cannot have sent (it said one
	 * already, has none to say, or is not exec'd yet): the next image's,
	 * read before its exec was (cw_annot_exec). */
	bool hello_ahead;
};

/* Whether an executable has an interpreter, by its identity (annot.c). */
struct interp_ent {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	int8_t result; /* 0 static, 1 dynamic; unused when ino == 0 */
};

struct cw_annot_symbols; /* annot_symbols.c's part */

/* The channel's state (run->annot): made by cw_annot_setup when the
 * preload is offered to the command (NULL: the layer is off), freed by
 * cw_annot_free. Used by the event loop and the notification thread, both
 * under run_lock only: the scratch buffers below (filled and used within
 * one call) are safe there. */
struct cw_annot {
	int sup_fd;                /* capwatch's end, -1 when off */
	int child_fd;              /* the command's end, until the launch is over */
	unsigned long child_ino;
	bool enabled;              /* the preload was offered to the command */
	char *env_kflag;           /* in CAPWATCH_ANNOT_FD's entry: the ':' of its
				    * ":k" suffix, cut until the launch (annot.c) */
	char lib_path[PATH_MAX];
	struct cw_annot_stats stats;
	struct ann *ring;          /* RING recent call annotations */
	size_t ring_next;
	struct name_rec *names;    /* NAMES recent resolutions */
	size_t names_next;
	struct cw_hmap buckets;    /* pid -> struct bucket */
	struct cw_hash_key hkey;   /* the key of the maps here (buckets, the interp cache) */
	struct interp_ent interp_cache[INTERP_CACHE];

	/* annot_channel.c: a drain is under way (its buffers below in use) */
	bool draining;
	/* annot_channel.c: notes about bad senders, a few per run */
	bool noted_unattributed;
	unsigned notes_written, flood_notes;

	/* annot_match.c: the host name of the last attach (valid until the
	 * next call), and the view looked up while the target was still
	 * blocked in its call (cw_annot_prepare) */
	char host_buf[CW_ANNOT_MAX_NAME + 1];
	struct {
		const struct cw_event *ev;
		pid_t tid;
		struct cw_annot_view view;
	} prepared;

	struct cw_annot_symbols *sym;

	/* scratch of one call */
	unsigned char drain_bufs[DRAIN_BATCH][CW_ANNOT_MAX_MSG + 1];
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * 16)];
	} drain_cms[DRAIN_BATCH];
	char environ_buf[65536 + PATH_MAX + 16]; /* /proc/PID/environ, in chunks */
};

/* A fresh state with its rings, maps and key: for cw_annot_setup (and the
 * unit tests). NULL when memory ran out. */
struct cw_annot *cw_annot_new(void);

/* annot_symbols.c: its part of the state (NULL when memory ran out), and
 * freeing it; name A's frames (sent by PID) into OUT's site and
 * backtrace; forget the cached maps of OWNER (at its exec). */
struct cw_run;
struct cw_annot_symbols *cw_annot_symbols_new(void);
void cw_annot_symbols_free(struct cw_annot_symbols *sym);
void cw_annot_symbolize(struct cw_run *run, pid_t pid, const struct ann *a, struct cw_annot_view *out);
void cw_annot_maps_cache_drop(struct cw_annot *an, pid_t owner);

#endif
