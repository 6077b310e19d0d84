/* Call sites of the preload channel's annotations, named here (see annot.h).
 *
 * Symbol names are looked up here rather than in the target, so that the
 * preload opens no file (which the filter would see and record) and a
 * lying target cannot choose the names: the module is the one the kernel
 * has mapped at that address (/proc/PID/maps, map_files), the names come
 * from its ELF symbol table, read with pread only (a file truncated under
 * us gives a short read, not SIGBUS) and with every offset checked. */
#include "config.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "supervisor/annot.h"
#include "supervisor/annot_impl.h"
#include "supervisor/ptrace.h"
#include "supervisor/state.h"
#include "supervisor/util.h"

/* ---- symbols ---- */

struct map_ent {
	uint64_t start, end, off;
	dev_t dev;
	unsigned long ino;
	const char *path; /* into the maps text */
};

struct maps {
	char *text;
	struct map_ent *v;
	size_t n;
	size_t len; /* of text */
};

static void maps_free(struct maps *m)
{
	free(m->text);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

static int maps_read(pid_t pid, struct maps *m)
{
	char path[64];
	size_t cap = 64 * 1024, len = 0;
	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	m->text = malloc(cap + 1);
	if (!m->text)
		return -ENOMEM;
	for (;;) {
		if (len == cap) {
			if (cap >= 8u << 20)
				break; /* enough: a bounded view */
			char *nt = realloc(m->text, cap * 2 + 1);
			if (!nt)
				break;
			m->text = nt;
			cap *= 2;
		}
		ssize_t r = read(fd, m->text + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	m->text[len] = '\0';
	m->len = len;
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += m->text[i] == '\n';
	m->v = calloc(lines + 1, sizeof(*m->v));
	if (!m->v) {
		maps_free(m);
		return -ENOMEM;
	}
	char *save = NULL;
	for (char *line = strtok_r(m->text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long s, e, off;
		unsigned maj, min;
		unsigned long ino;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %lu %n", &s, &e, perms, &off, &maj, &min, &ino, &pos) < 7)
			continue;
		struct map_ent *me = &m->v[m->n++];
		me->start = s;
		me->end = e;
		me->off = off;
		me->dev = makedev(maj, min);
		me->ino = ino;
		me->path = pos > 0 ? line + pos : "";
	}
	return 0;
}

static const struct map_ent *maps_find(const struct maps *m, uint64_t ip)
{
	for (size_t i = 0; i < m->n; i++)
		if (ip >= m->v[i].start && ip < m->v[i].end)
			return &m->v[i];
	return NULL;
}

struct sym {
	uint64_t value, size;
	uint32_t name;
};

struct module {
	dev_t dev;
	unsigned long ino;
	bool bad;
	uint64_t use;
	struct { uint64_t off, filesz, vaddr; } load[16];
	size_t nload;
	struct sym *syms;  /* sorted by value */
	size_t nsyms;
	char *strtab;
	size_t strsize;
	size_t cost;       /* heap it holds: strtab and syms (SYMS_BUDGET) */
};
#define MODULES 16
/* What the cache may hold (issue 15; red team 24 F3: 16 crafted files
 * of a 16 MiB string table and 500,000 symbols each held ~420 MiB). One
 * file: 200,000 symbols and an 8 MiB string table at most (libc's .symtab
 * has ~3,000 function symbols, a large C++ program's some 100,000);
 * all files: SYMS_BUDGET, least recently used files dropped to make room.
 * A file over the per-file bounds gets no names: the call site, advisory,
 * stays module+offset. */
#define SYMS_PER_FILE 200000u
#define STRTAB_PER_FILE (8u << 20)
#define SYMS_BUDGET (24u << 20)
/* Symbol tables read per event at most: a target mapping many large files
 * cannot make one annotation cost the supervisor more than this. */
#define LOADS_PER_EVENT 4

/* Parsed maps of recent images (maps_for). */
#define MAPS_CACHE 8
struct maps_cache {
	pid_t owner;
	double start;
	uint64_t use;
	struct maps m;
};

/* This file's part of the channel's state (run->annot->sym), used under
 * run_lock like the rest of it. */
struct cw_annot_symbols {
	/* frames of the last attach (valid until the next call) */
	char frame_text[CW_ANNOT_MAX_FRAMES][640];
	const char *frame_ptrs[CW_ANNOT_MAX_FRAMES + 1];
	struct module modules[MODULES];
	uint64_t module_clock;
	size_t modules_cost;         /* sum of modules[].cost, of SYMS_BUDGET */
	int loads_left;              /* of LOADS_PER_EVENT, in this event */
	struct maps_cache maps_cache[MAPS_CACHE];
	uint64_t maps_clock;
};

static void module_clear(struct cw_annot_symbols *sym, struct module *md)
{
	sym->modules_cost -= md->cost;
	free(md->syms);
	free(md->strtab);
	memset(md, 0, sizeof(*md));
}

static bool pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		done += (size_t)r;
	}
	return true;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->value < y->value ? -1 : x->value > y->value;
}

/* Read the symbol table of an ELF file: .symtab when present (names of
 * static functions), else .dynsym. Every size and offset is checked against
 * fixed caps; anything odd leaves the module without names. */
static void module_load(struct cw_annot_symbols *sym, struct module *md, int fd)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	Elf64_Sym *raw = NULL;

	md->bad = true;
	if (!pread_full(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_phentsize != sizeof(Elf64_Phdr) ||
	    eh.e_shnum == 0 || eh.e_shnum > 4096 || eh.e_phnum > 256)
		return;
	for (unsigned i = 0; i < eh.e_phnum && md->nload < CW_ARRAY_SIZE(md->load); i++) {
		Elf64_Phdr ph;
		if (!pread_full(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * sizeof(ph)))
			return;
		if (ph.p_type == PT_LOAD) {
			md->load[md->nload].off = ph.p_offset;
			md->load[md->nload].filesz = ph.p_filesz;
			md->load[md->nload].vaddr = ph.p_vaddr;
			md->nload++;
		}
	}
	sh = calloc(eh.e_shnum, sizeof(*sh));
	if (!sh || !pread_full(fd, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff))
		goto out;
	int pick = -1;
	for (unsigned i = 0; i < eh.e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			pick = (int)i;
	if (pick < 0)
		for (unsigned i = 0; i < eh.e_shnum; i++)
			if (sh[i].sh_type == SHT_DYNSYM)
				pick = (int)i;
	if (pick < 0 || sh[pick].sh_link >= eh.e_shnum || sh[pick].sh_entsize != sizeof(Elf64_Sym))
		goto out;
	const Elf64_Shdr *ss = &sh[pick], *st = &sh[ss->sh_link];
	size_t nraw = ss->sh_size / sizeof(Elf64_Sym);
	if (nraw == 0 || nraw > SYMS_PER_FILE || st->sh_size == 0 || st->sh_size > STRTAB_PER_FILE)
		goto out;
	/* Room in the budget for the most this file can cost: the least
	 * recently used other files go (MD itself was cleared). */
	size_t most = st->sh_size + 1 + nraw * sizeof(*md->syms);
	while (sym->modules_cost + most > SYMS_BUDGET) {
		struct module *lru = NULL;
		for (size_t i = 0; i < MODULES; i++) {
			struct module *o = &sym->modules[i];
			if (o != md && o->cost && (!lru || o->use < lru->use))
				lru = o;
		}
		if (!lru)
			goto out;
		module_clear(sym, lru); /* forgotten, not bad: read again when needed */
	}
	raw = malloc(nraw * sizeof(*raw));
	md->strtab = malloc(st->sh_size + 1);
	md->syms = malloc(nraw * sizeof(*md->syms));
	if (!raw || !md->strtab || !md->syms || !pread_full(fd, raw, nraw * sizeof(*raw), ss->sh_offset) ||
	    !pread_full(fd, md->strtab, st->sh_size, st->sh_offset))
		goto out;
	md->strtab[st->sh_size] = '\0';
	md->strsize = st->sh_size;
	for (size_t i = 0; i < nraw; i++) {
		if (ELF64_ST_TYPE(raw[i].st_info) != STT_FUNC || raw[i].st_shndx == SHN_UNDEF ||
		    raw[i].st_value == 0 || raw[i].st_name >= st->sh_size)
			continue;
		md->syms[md->nsyms].value = raw[i].st_value;
		md->syms[md->nsyms].size = raw[i].st_size;
		md->syms[md->nsyms].name = raw[i].st_name;
		md->nsyms++;
	}
	qsort(md->syms, md->nsyms, sizeof(*md->syms), sym_cmp);
	if (md->nsyms < nraw) {
		struct sym *fit = realloc(md->syms, (md->nsyms ? md->nsyms : 1) * sizeof(*fit));
		if (fit)
			md->syms = fit;
	}
	md->cost = md->strsize + 1 + md->nsyms * sizeof(*md->syms);
	sym->modules_cost += md->cost;
	md->bad = false;
out:
	if (md->bad) {
		free(md->syms);
		free(md->strtab);
		md->syms = NULL;
		md->strtab = NULL;
		md->nsyms = 0;
	}
	free(raw);
	free(sh);
}

/* The file the kernel has mapped at ME in PID, checked to be that very
 * file (device and inode of the mapping) and a regular file. */
static int open_mapped(pid_t pid, const struct map_ent *me)
{
	char p[128];
	struct stat st;
	snprintf(p, sizeof(p), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)me->start, (unsigned long long)me->end);
	int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 && me->path[0] == '/') {
		/* No map_files access: the path, refused unless it is a
		 * regular file before and after opening (O_NONBLOCK: a FIFO
		 * put there cannot block us). */
		if (lstat(me->path, &st) < 0 || !S_ISREG(st.st_mode) ||
		    st.st_ino != me->ino || st.st_dev != me->dev)
			return -1;
		fd = open(me->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_ino != me->ino || st.st_dev != me->dev) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct module *module_get(struct cw_annot_symbols *sym, pid_t pid, const struct map_ent *me)
{
	struct module *victim = &sym->modules[0];
	for (size_t i = 0; i < MODULES; i++) {
		struct module *md = &sym->modules[i];
		if (md->use && md->dev == me->dev && md->ino == me->ino) {
			md->use = ++sym->module_clock;
			return md->bad ? NULL : md;
		}
		if (md->use < victim->use)
			victim = md;
	}
	if (sym->loads_left <= 0)
		return NULL; /* over budget: this frame stays module+offset */
	sym->loads_left--;
	module_clear(sym, victim);
	victim->dev = me->dev;
	victim->ino = me->ino;
	victim->use = ++sym->module_clock;
	victim->bad = true;
	int fd = open_mapped(pid, me);
	if (fd >= 0) {
		module_load(sym, victim, fd);
		close(fd);
	}
	return victim->bad ? NULL : victim;
}

static const char *sym_lookup(const struct module *md, uint64_t fileoff, uint64_t *symoff)
{
	uint64_t va = 0;
	bool found = false;
	for (size_t i = 0; i < md->nload && !found; i++)
		if (fileoff >= md->load[i].off && fileoff < md->load[i].off + md->load[i].filesz) {
			va = fileoff - md->load[i].off + md->load[i].vaddr;
			found = true;
		}
	if (!found || md->nsyms == 0)
		return NULL;
	/* Last symbol starting at or before VA; it must contain VA (a
	 * nearest-below guess would name a static function after an
	 * unrelated exported one). */
	size_t lo = 0, hi = md->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (md->syms[mid].value <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct sym *s = &md->syms[i];
		if (va >= s->value && va < s->value + s->size) {
			*symoff = va - s->value;
			return md->strtab + s->name;
		}
		if (lo - i > 8)
			break;
	}
	return NULL;
}

static bool is_preload(const struct cw_annot *an, const struct map_ent *me)
{
	const char *b = strrchr(me->path, '/');
	return strcmp(me->path, an->lib_path) == 0 || (b && strcmp(b + 1, LIB_NAME) == 0);
}

/* One frame as "function+0xOFF (module+0xOFF)". Returns false for a frame
 * inside the preload itself. */
static bool frame_format(struct cw_annot *an, pid_t pid, const struct maps *m, uint64_t ip, bool retaddr,
			 char *out, size_t n)
{
	uint64_t look = retaddr && ip ? ip - 1 : ip;
	const struct map_ent *me = m ? maps_find(m, look) : NULL;
	if (!me || !me->path[0]) {
		snprintf(out, n, "0x%llx", (unsigned long long)ip);
		return true;
	}
	if (is_preload(an, me))
		return false;
	uint64_t fileoff = ip - me->start + me->off;
	uint64_t symoff = 0;
	const struct module *md = me->ino ? module_get(an->sym, pid, me) : NULL;
	const char *sym = md ? sym_lookup(md, look - me->start + me->off, &symoff) : NULL;
	if (sym) {
		symoff += ip - look;
		snprintf(out, n, "%.200s+0x%llx (%.300s+0x%llx)", sym, (unsigned long long)symoff, me->path,
			 (unsigned long long)fileoff);
	} else {
		snprintf(out, n, "%.300s+0x%llx", me->path, (unsigned long long)fileoff);
	}
	return true;
}

/* Parsed maps of recent images, so that a shell that forks a hundred
 * children does not have /proc/PID/maps read and parsed for each of their
 * exec annotations (4 syscalls and a few dozen sscanf per exec). Keyed by
 * the image: the process that owns the address space (a child that forked
 * and has not exec'd runs its parent's image, which had not exec'd since
 * the fork) and its start time, so a reused pid is another key; dropped at
 * the owner's exec (cw_annot_exec). A hit is used only when every frame
 * falls in a file mapping of the cached copy; else the sender's maps are
 * read afresh. What a stale hit could do (a library unmapped and another
 * one mapped at the same range since) is name a frame wrongly: frames are
 * an advisory annotation the sender chose anyway. */
#define MAPS_CACHE_MAX_TEXT (256 * 1024) /* bigger maps are not kept */

struct cw_annot_symbols *cw_annot_symbols_new(void)
{
	return calloc(1, sizeof(struct cw_annot_symbols));
}

void cw_annot_symbols_free(struct cw_annot_symbols *sym)
{
	if (!sym)
		return;
	for (size_t i = 0; i < MAPS_CACHE; i++)
		maps_free(&sym->maps_cache[i].m);
	for (size_t i = 0; i < MODULES; i++)
		module_clear(sym, &sym->modules[i]);
	free(sym);
}

void cw_annot_maps_cache_drop(struct cw_annot *an, pid_t owner)
{
	struct cw_annot_symbols *sym = an->sym;
	for (size_t i = 0; i < MAPS_CACHE; i++)
		if (sym->maps_cache[i].use && sym->maps_cache[i].owner == owner) {
			maps_free(&sym->maps_cache[i].m);
			sym->maps_cache[i].use = 0;
		}
}

/* The process whose image PID runs, and that image's start. */
static const struct cw_proc *image_owner(const struct cw_run *run, pid_t pid)
{
	const struct cw_proc *p = cw_tracker_find(run, pid);
	for (int depth = 0; p && !p->execed && !p->is_thread && depth < 64; depth++) {
		const struct cw_proc *pp = cw_tracker_find(run, p->ppid);
		/* The parent's current image is the one forked only if it has
		 * not exec'd since: a later exec of another program changed its
		 * exe, a second exec its start (ptrace.c). An exec of the same
		 * program again is caught by frames_mapped() in all but the
		 * unlikely case that every frame falls in a file mapping of the
		 * new layout. */
		if (!pp || !pp->alive || pp->is_thread || pp->start > p->start || !p->exe || !pp->exe ||
		    strcmp(p->exe, pp->exe) != 0)
			break;
		p = pp;
	}
	return p;
}

static bool frames_mapped(const struct maps *m, const struct ann *a)
{
	for (unsigned i = 0; i < a->nframes; i++) {
		uint64_t ip = a->frames[i];
		const struct map_ent *me = maps_find(m, ip ? ip - 1 : ip);
		if (!me || !me->path[0])
			return false;
	}
	return true;
}

/* Maps for the frames of A sent by PID: a cached copy of its image
 * owner's, else the owner's read now (and kept), else PID's own read now
 * (a fork child that mapped something of its own). Returns NULL when
 * unreadable; *FRESH is set when the caller owns the result (maps_free). */
static struct maps *maps_for(struct cw_run *run, pid_t pid, const struct ann *a, struct maps *tmp, bool *fresh)
{
	struct maps_cache *maps_cache = run->annot->sym->maps_cache;
	uint64_t *maps_clock = &run->annot->sym->maps_clock;
	const struct cw_proc *o = image_owner(run, pid);
	*fresh = false;
	memset(tmp, 0, sizeof(*tmp));
	if (o) {
		struct maps_cache *victim = &maps_cache[0];
		for (size_t i = 0; i < MAPS_CACHE; i++) {
			struct maps_cache *c = &maps_cache[i];
			if (c->use && c->owner == o->pid && c->start == o->start && frames_mapped(&c->m, a)) {
				c->use = ++*maps_clock;
				return &c->m;
			}
		}
		for (size_t i = 0; i < MAPS_CACHE; i++) {
			if (maps_cache[i].use && maps_cache[i].owner == o->pid) {
				victim = &maps_cache[i]; /* the same owner: newer maps */
				break;
			}
			if (maps_cache[i].use < victim->use)
				victim = &maps_cache[i];
		}
		if (maps_read(o->pid, tmp) == 0) {
			if (tmp->len < MAPS_CACHE_MAX_TEXT) {
				maps_free(&victim->m);
				victim->m = *tmp; /* ownership moves to the cache */
				memset(tmp, 0, sizeof(*tmp));
				victim->owner = o->pid;
				victim->start = o->start;
				victim->use = ++*maps_clock;
				if (o->pid == pid || frames_mapped(&victim->m, a))
					return &victim->m;
			} else if (o->pid == pid) {
				*fresh = true;
				return tmp;
			} else {
				maps_free(tmp);
			}
		}
	}
	if (maps_read(pid, tmp) < 0)
		return NULL;
	*fresh = true;
	return tmp;
}

void cw_annot_symbolize(struct cw_run *run, pid_t pid, const struct ann *a, struct cw_annot_view *out)
{
	struct cw_annot_symbols *sym = run->annot->sym;
	struct maps tmp;
	bool fresh = false;
	const struct maps *m = maps_for(run, pid, a, &tmp, &fresh);
	size_t k = 0;
	sym->loads_left = LOADS_PER_EVENT;
	for (unsigned i = 0; i < a->nframes && k < CW_ANNOT_MAX_FRAMES; i++) {
		if (frame_format(run->annot, pid, m, a->frames[i], true, sym->frame_text[k], sizeof(sym->frame_text[k])))
			sym->frame_ptrs[k] = sym->frame_text[k], k++;
	}
	sym->frame_ptrs[k] = NULL;
	if (fresh)
		maps_free(&tmp);
	if (k) {
		out->backtrace = sym->frame_ptrs;
		out->site = sym->frame_ptrs[0];
	}
}
