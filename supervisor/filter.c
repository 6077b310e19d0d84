/* Filter generation.
 *
 * Layout (libseccomp emits it; checked with seccomp_export_pfc/bpf):
 *   arch != AUDIT_ARCH_X86_64          -> KILL_PROCESS (i386 int 0x80, K5)
 *   nr >= 0x40000000 (x32), nr != -1   -> KILL_PROCESS (libseccomp adds this
 *                                          check for x86_64 when x32 is not
 *                                          in the filter; it uses the
 *                                          bad-arch action we set)
 *   rows of handlers/table.c           -> NOTIFY / ERRNO / (ALLOW rows: no rule)
 *   every other number < CW_NSYSCALLS  -> NOTIFY: refused and recorded
 *                                          (default deny, handlers.h)
 *   everything else                    -> ALLOW: numbers from CW_NSYSCALLS
 *                                          (1024) up to the x32 range, where
 *                                          the kernel has no syscall (ENOSYS)
 * The default action stays ALLOW only because libseccomp 2.5 cannot AND two
 * compares of one argument, which the complements of the conditional rows
 * would need under a NOTIFY default; every number a kernel can implement
 * has a rule. Compiled as a binary tree (SCMP_FLTATR_CTL_OPTIMIZE 2): about
 * ten compares find any syscall.
 * Integer arguments are compared on their low 32 bits only (K6), with
 * masked compares (see low32_eq()). */
#include "config.h"
#include <errno.h>
#include <seccomp.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "supervisor/filter.h"
#include "supervisor/handlers/handlers.h"
#include "supervisor/state.h"
#include "supervisor/log.h"
#include "supervisor/util.h"

/* Does the profile allow this escape syscall? Decided once, here, with the
 * same function the handler uses at run time. */
static bool escape_allowed(struct cw_run *run, const char *name)
{
	struct cw_op op = { .kind = CW_OP_ESCAPE_SYSCALL, .syscall = name };
	struct cw_decision d;
	cw_policy_decide(run->profile, &run->ctx, &op, &d);
	return d.verdict == CW_ALLOW || run->observe;
}

/* (u32)args[ARG] == V, whatever the upper half of the register holds:
 * the kernel truncates int arguments (K6). libseccomp 2.5.4 compiles
 * SCMP_CMP32 with SCMP_CMP_EQ into a 64-bit compare (upper half == 0),
 * which `cmd | 1UL << 32` passes; a masked compare checks the low word
 * only (its upper mask is 0). */
static struct scmp_arg_cmp low32_eq(unsigned arg, uint32_t v)
{
	return SCMP_CMP64(arg, SCMP_CMP_MASKED_EQ, 0xffffffffu, v);
}

/* The bits of open(2)'s flags that make it more than a read: notified
 * (with CAPWATCH_KERNEL_READS, the rest is decided at its fanotify event,
 * kernel.h). O_PATH opens too: they get no fanotify event. */
#define CW_OPEN_NOTIFY_BITS (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_PATH | (O_TMPFILE & ~O_DIRECTORY))

static int add_rules(struct cw_run *run, scmp_filter_ctx ctx, int nr, const struct cw_syscall *s)
{
	int rc = 0;
	if (run->kernel_reads && (nr == __NR_open || nr == __NR_openat)) {
		unsigned arg = nr == __NR_open ? 1 : 2;
		for (int b = 0; b < 32 && rc == 0; b++) {
			uint32_t bit = 1u << b;
			if (CW_OPEN_NOTIFY_BITS & bit)
				rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
						      SCMP_CMP32(arg, SCMP_CMP_MASKED_EQ, bit, bit));
		}
		return rc;
	}
	switch (s->rule) {
	case CW_RULE_ALLOW:
		return 0;
	case CW_RULE_NONE:
		/* Default deny: refused by cw_handle_unlisted (or allowed
		 * there under unrestricted), recorded either way. */
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	case CW_RULE_NOTIFY:
	case CW_RULE_ESCAPE:
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	case CW_RULE_NOTIFY_ARG_SET:
		/* A pointer: all 64 bits matter. */
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
					SCMP_CMP64(s->arg, SCMP_CMP_NE, 0));
	case CW_RULE_ESCAPE_FLAGS:
		/* One rule per bit: (u32)arg & bit == bit. Notified whether the
		 * profile allows it or not, so that it is recorded. */
		for (int b = 0; b < 32 && rc == 0; b++) {
			uint32_t bit = 1u << b;
			if (s->mask & bit)
				rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
						      SCMP_CMP32(s->arg, SCMP_CMP_MASKED_EQ, bit, bit));
		}
		return rc;
	case CW_RULE_ESCAPE_EQ:
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1, low32_eq(s->arg, s->mask));
	case CW_RULE_NOTIFY_EQ:
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1, low32_eq(s->arg, s->mask));
		if (rc == 0 && s->val2)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1, low32_eq(s->arg, s->val2));
		return rc;
	case CW_RULE_NOTIFY_UNLISTED:
		/* libseccomp cannot AND several compares of one argument, so
		 * one rule per value outside the set. */
		for (uint32_t v = 0; v < 64 && rc == 0; v++)
			if (!(s->allow_set & (1ull << v)))
				rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1, low32_eq(s->arg, v));
		return rc;
	case CW_RULE_ESCAPE_SILENT:
		/* Denied in the filter: invisible to the supervisor, hence
		 * never recorded (only rows where a record adds nothing). */
		if (escape_allowed(run, s->name))
			return 0;
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
	case CW_RULE_ENOSYS:
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	case CW_RULE_NOTIFY_IN:
		/* One rule per value of the set, on the low 32 bits. */
		for (unsigned i = 0; i < s->nvals && rc == 0; i++)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1, low32_eq(s->arg, s->vals[i]));
		/* ... and one per ioctl type not passed in the kernel: (u32)arg
		 * & 0xff00 == TYPE << 8 (a masked compare, low word only). */
		for (unsigned t = 0; s->type_allow && t < 256 && rc == 0; t++)
			if (!(s->type_allow[t / 64] & (1ull << (t % 64))))
				rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
						      SCMP_CMP64(s->arg, SCMP_CMP_MASKED_EQ, 0xff00u, (uint64_t)t << 8));
		return rc;
	case CW_RULE_NOTIFY_IN_BIT:
		for (unsigned i = 0; i < s->nvals && rc == 0; i++)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1, low32_eq(s->arg, s->vals[i]));
		if (rc == 0)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 2, low32_eq(s->arg, s->mask),
					      SCMP_CMP32(s->arg + 1u, SCMP_CMP_MASKED_EQ, s->val2, s->val2));
		return rc;
	case CW_RULE_NOTIFY_PAIRS:
		/* One rule per pair: two compares of two different arguments,
		 * which libseccomp ANDs within a rule. */
		for (unsigned i = 0; i < s->nvals && rc == 0; i++)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 2,
					      low32_eq(s->arg, s->vals[2 * i]),
					      low32_eq(s->arg + 1u, s->vals[2 * i + 1]));
		return rc;
	}
	return -EINVAL;
}

int cw_filter_build(struct cw_run *run, struct sock_fprog *out)
{
	int rc;
	_cleanup_close_ int mfd = -1;
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		cw_err("seccomp_init failed");
		return -ENOMEM;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0); /* the child sets it itself */
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc < 0) {
		/* libseccomp learns what the kernel has by calling seccomp(2);
		 * where a container runtime's profile refuses that call it
		 * falls back to API level 1, which has no KILL_PROCESS (nor
		 * NOTIFY), and this is the first place that shows. */
		unsigned int api = seccomp_api_get();
		cw_err("seccomp filter attributes: %s (libseccomp API level %u%s)", strerror(-rc), api,
		       api < 5 ? ": the seccomp() system call is refused, e.g. by a container's seccomp "
				 "profile, or the kernel has no user notification" : "");
	}
	if (rc == 0 && !run->syscall_names) {
		/* Names for the numbers with no row, for the records. */
		run->syscall_names = calloc(CW_NSYSCALLS, sizeof(*run->syscall_names));
		if (!run->syscall_names)
			rc = -ENOMEM;
		for (int nr = 0; rc == 0 && nr < CW_NSYSCALLS; nr++) {
			char *nm = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
			if (nm && strlen(nm) < sizeof(run->syscall_names[nr]))
				memcpy(run->syscall_names[nr], nm, strlen(nm) + 1);
			else
				snprintf(run->syscall_names[nr], sizeof(run->syscall_names[nr]),
					 "syscall_%d", nr);
			free(nm);
		}
	}
	for (int nr = 0; rc == 0 && nr < CW_NSYSCALLS; nr++) {
		rc = add_rules(run, ctx, nr, &cw_syscalls[nr]);
		if (rc < 0)
			cw_err("seccomp rule for %s: %s", cw_syscall_name(run, nr), strerror(-rc));
	}
	if (rc < 0)
		goto out;

	mfd = memfd_create("capwatch-bpf", MFD_CLOEXEC);
	if (mfd < 0) {
		rc = -errno;
		cw_err("memfd_create: %s", strerror(errno));
		goto out;
	}
	rc = seccomp_export_bpf(ctx, mfd);
	if (rc < 0) {
		cw_err("seccomp_export_bpf: %s", strerror(-rc));
		goto out;
	}
	off_t size = lseek(mfd, 0, SEEK_END);
	if (size <= 0 || size % sizeof(struct sock_filter) || size > 65536 * 8) {
		rc = -EINVAL;
		cw_err("exported filter has an odd size %lld", (long long)size);
		goto out;
	}
	struct sock_filter *insns = malloc((size_t)size);
	if (!insns) {
		rc = -ENOMEM;
		goto out;
	}
	if (pread(mfd, insns, (size_t)size, 0) != size) {
		rc = -EIO;
		free(insns);
		cw_err("reading back the exported filter failed");
		goto out;
	}
	out->filter = insns;
	out->len = (unsigned short)(size / sizeof(struct sock_filter));
	cw_debug("filter: %u BPF instructions", out->len);
	rc = 0;
out:
	seccomp_release(ctx);
	return rc;
}
