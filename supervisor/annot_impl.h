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
#include <sys/types.h>
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
};

/* The channel's state: one per capwatch process, as the channel is the
 * run's (single-threaded: the event loop's). */
struct cw_annot_state {
	int sup_fd;                /* capwatch's end, -1 when off */
	bool enabled;              /* the preload was offered to the command */
	char lib_path[PATH_MAX];
	struct cw_annot_stats stats;
	struct ann *ring;          /* RING recent call annotations */
	size_t ring_next;
	struct name_rec *names;    /* NAMES recent resolutions */
	size_t names_next;
	struct cw_hmap buckets;    /* pid -> struct bucket */
	struct cw_hash_key hkey;   /* the key of the maps here (buckets, the interp cache) */
};
extern struct cw_annot_state cw_annot;

/* annot_symbols.c: name A's frames (sent by PID) into OUT's site and
 * backtrace; forget cached maps (all of them, or OWNER's at its exec). */
struct cw_run;
void cw_annot_symbolize(struct cw_run *run, pid_t pid, const struct ann *a, struct cw_annot_view *out);
void cw_annot_maps_cache_clear(void);
void cw_annot_maps_cache_drop(pid_t owner);

#endif
