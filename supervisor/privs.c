/* Least privilege at launch: see privs.h. */
#include "config.h"
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include "supervisor/privs.h"
#include "supervisor/state.h"
#include "supervisor/log.h"
#include "policy/cap.h"
#include "policy/profile.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* Docker's default capability set (moby's oci/caps/defaults.go), the
 * anchor the issue names for a command started by root, less CAP_NET_RAW:
 * Docker gives it in a network namespace of the container's own, where a
 * raw socket sees only the container's traffic; the tree shares the
 * host's, and a raw socket would read every local connection (e127). */
#define BIT(c) (1ull << (c))
static const uint64_t docker_default =
	BIT(CAP_CHOWN) | BIT(CAP_DAC_OVERRIDE) | BIT(CAP_FOWNER) | BIT(CAP_FSETID) |
	BIT(CAP_KILL) | BIT(CAP_SETGID) | BIT(CAP_SETUID) | BIT(CAP_SETPCAP) |
	BIT(CAP_NET_BIND_SERVICE) | BIT(CAP_SYS_CHROOT) |
	BIT(CAP_MKNOD) | BIT(CAP_AUDIT_WRITE) | BIT(CAP_SETFCAP);

int cw_caps_get(struct cw_caps *c)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	c->eff = d[0].effective | (uint64_t)d[1].effective << 32;
	c->perm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	c->inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

int cw_caps_set(const struct cw_caps *c)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {
		{ (uint32_t)c->eff, (uint32_t)c->perm, (uint32_t)c->inh },
		{ (uint32_t)(c->eff >> 32), (uint32_t)(c->perm >> 32), (uint32_t)(c->inh >> 32) },
	};
	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

static int read_last_cap(void)
{
	char buf[16];
	int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return CAP_LAST_CAP;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return CAP_LAST_CAP;
	buf[n] = '\0';
	int v = atoi(buf);
	return v > 0 && v < 64 ? v : CAP_LAST_CAP;
}

void cw_privs_prepare(struct cw_run *run, struct cw_privs *p)
{
	memset(p, 0, sizeof(*p));
	/* --observe denies nothing: the command keeps what capwatch has, as
	 * it keeps Landlock off (SECURITY.md). */
	p->observe = run->observe;
	p->keep_all = run->observe || cw_profile_default(run->profile, CW_CAP_UNRESTRICTED) == CW_ALLOW;
	p->root = geteuid() == 0;
	p->last_cap = read_last_cap();
	struct cw_caps c = { 0, 0, 0 };
	if (cw_caps_get(&c) < 0)
		memset(&c, 0, sizeof(c));
	p->can_setpcap = c.eff & BIT(CAP_SETPCAP);
	p->can_sysadmin = c.eff & BIT(CAP_SYS_ADMIN);
	/* Root keeps Docker's set (of what capwatch has); anyone else keeps
	 * nothing, whatever capabilities capwatch was given. */
	p->keep = p->root ? docker_default & c.perm : 0;
}

uint32_t cw_privs_child(const struct cw_privs *p, int *err_caps, int *err_ns)
{
	uint32_t applied = 0;
	*err_caps = 0;
	*err_ns = 0;
	if (p->keep_all)
		return 0;

	/* 1. Namespaces, while CAP_SYS_ADMIN is still held. */
	if (p->can_sysadmin) {
		if (unshare(CLONE_NEWIPC | CLONE_NEWUTS) == 0) {
			applied |= CW_PRIV_IPCNS | CW_PRIV_UTSNS;
		} else {
			/* A kernel without one of them: take what there is. */
			*err_ns = errno;
			if (unshare(CLONE_NEWIPC) == 0)
				applied |= CW_PRIV_IPCNS;
			if (unshare(CLONE_NEWUTS) == 0)
				applied |= CW_PRIV_UTSNS;
		}
	}

	/* 2. The ambient set: cleared for everyone (no privilege needed). */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		*err_caps = errno;

	/* 3. The bounding set and the securebits (CAP_SETPCAP). Without it
	 * (an ordinary account) the bounding set stays full, which grants
	 * nothing: no_new_privs keeps exec from adding capabilities. */
	if (p->can_setpcap) {
		bool ok = true;
		for (int cap = 0; cap <= p->last_cap; cap++) {
			if (p->keep & BIT(cap))
				continue;
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL) {
				if (!*err_caps)
					*err_caps = errno;
				ok = false;
			}
		}
		if (ok)
			applied |= CW_PRIV_BOUNDING;
		/* KEEP_CAPS stays unlocked: tools that drop privileges
		 * (setpriv) set it on their way down, and the setuid family
		 * it matters for is refused by the filter anyway. */
		unsigned long bits = SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_NOROOT_LOCKED |
				     SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
		if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) == 0)
			applied |= CW_PRIV_SECBITS;
		else if (!*err_caps)
			*err_caps = errno;
	}

	/* 4. Permitted, effective, inheritable: intersected with the plan
	 * (lowering needs no privilege). */
	struct cw_caps c = { 0 }; /* -O3: cw_caps_get may fail without filling it */
	int r = cw_caps_get(&c);
	if (r == 0) {
		c.perm &= p->keep;
		c.eff &= p->keep;
		c.inh &= p->keep;
		r = cw_caps_set(&c);
	}
	if (r == 0)
		applied |= CW_PRIV_CAPS;
	else if (!*err_caps)
		*err_caps = -r;
	return applied;
}

void cw_privs_result(struct cw_run *run, struct cw_privs *p, uint32_t applied, int err_caps, int err_ns)
{
	p->applied = applied;
	p->err_caps = err_caps;
	p->err_ns = err_ns;
	p->layer[0] = '\0';
	p->layer_ns[0] = '\0';
	p->note[0] = '\0';
	if (p->keep_all) {
		snprintf(p->note, sizeof(p->note),
			 "%s: the command keeps capwatch's capabilities and namespaces",
			 p->observe ? "--observe denies nothing" : "the profile grants unrestricted");
		return;
	}
	bool caps_ok = (applied & CW_PRIV_CAPS) && !err_caps &&
		       (!p->can_setpcap || (applied & (CW_PRIV_BOUNDING | CW_PRIV_SECBITS)) ==
						   (CW_PRIV_BOUNDING | CW_PRIV_SECBITS));
	if (caps_ok)
		snprintf(p->layer, sizeof(p->layer), "capabilities:%s",
			 p->keep ? "docker-default" : "none");
	char ns[24] = "";
	if (applied & CW_PRIV_IPCNS)
		strcat(ns, "ipc");
	if (applied & CW_PRIV_UTSNS)
		strcat(ns, ns[0] ? "+uts" : "uts");

	size_t len = 0;
	if (!caps_ok) {
		len += (size_t)snprintf(p->note + len, sizeof(p->note) - len,
					"the command's capabilities could not be reduced (%s)",
					strerror(err_caps ? err_caps : EPERM));
		/* It may hold more than the profile grants: say so loudly. */
		size_t dl = strlen(run->downgrade_reason);
		snprintf(run->downgrade_reason + dl, sizeof(run->downgrade_reason) - dl,
			 "%scapabilities not dropped (%s)", dl ? "; " : "",
			 strerror(err_caps ? err_caps : EPERM));
		run->degraded = true;
	}
	if (!(applied & CW_PRIV_IPCNS) && len < sizeof(p->note)) {
		if (p->can_sysadmin) {
			/* Attempted and failed where it should work. */
			len += (size_t)snprintf(p->note + len, sizeof(p->note) - len,
						"%sno IPC namespace (%s)", len ? "; " : "",
						strerror(err_ns ? err_ns : EPERM));
			size_t dl = strlen(run->downgrade_reason);
			snprintf(run->downgrade_reason + dl, sizeof(run->downgrade_reason) - dl,
				 "%sno IPC namespace (%s): System V IPC of other processes is reachable",
				 dl ? "; " : "", strerror(err_ns ? err_ns : EPERM));
			run->degraded = true;
		} else {
			len += (size_t)snprintf(p->note + len, sizeof(p->note) - len,
						"%sno IPC or UTS namespace: it needs CAP_SYS_ADMIN",
						len ? "; " : "");
		}
	}
	if (ns[0])
		snprintf(p->layer_ns, sizeof(p->layer_ns), "namespaces:%s", ns);
}
