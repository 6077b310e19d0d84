/* Every syscall capwatch knows, in three kinds (handlers.h): decided by a
 * handler (ordered by risk, highest first), passed in the kernel (the
 * ALLOW rows at the end: reads, writes on open descriptors, mmap, ...:
 * their capability was decided when the descriptor was obtained), and
 * everything else refused and recorded (default deny).
 *
 * Anchors: Docker's default seccomp profile and systemd's @system-service
 * groups. Where they allow something capwatch refuses, the row says why:
 * fanotify (a second, unsupervised way to open files, and permission
 * events that stall capwatch's own opens), sethostname/setdomainname
 * (harmless in the UTS namespace capwatch makes for root, refused anyway:
 * nothing in a build needs them), and the syscalls newer than this table
 * (setxattrat, file_setattr, open_tree_attr: a second path to decisions
 * the handlers make), which are refused with ENOSYS so that programs fall
 * back to the calls capwatch decides.
 *
 * Not covered (the hardening issue): descriptors received in SCM_RIGHTS
 * messages. ftruncate and fallocate need a descriptor open for writing,
 * whose open was decided already. */
#include "config.h"
#include <fcntl.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/seccomp.h>
#include <linux/fs.h>
#include <linux/sockios.h>
#include <linux/btrfs.h>
#include <linux/fscrypt.h>
#include <linux/fsverity.h>
#include "supervisor/handlers/handlers.h"
#include "supervisor/state.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif
#ifndef __NR_map_shadow_stack
#define __NR_map_shadow_stack 453
#endif
#ifndef __NR_futex_wake
#define __NR_futex_wake 454
#endif
#ifndef __NR_futex_wait
#define __NR_futex_wait 455
#endif
#ifndef __NR_futex_requeue
#define __NR_futex_requeue 456
#endif
#ifndef __NR_memfd_secret
#define __NR_memfd_secret 447
#endif
#ifndef __NR_set_mempolicy_home_node
#define __NR_set_mempolicy_home_node 450
#endif
#ifndef __NR_futex_waitv
#define __NR_futex_waitv 449
#endif
#ifndef __NR_quotactl_fd
#define __NR_quotactl_fd 443
#endif
#ifndef __NR_process_mrelease
#define __NR_process_mrelease 448
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#ifndef __NR_epoll_pwait2
#define __NR_epoll_pwait2 441
#endif
#ifndef __NR_process_madvise
#define __NR_process_madvise 440
#endif
#ifndef __NR_faccessat2
#define __NR_faccessat2 439
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452
#endif

/* The ioctl commands decided by handlers/ioctl.c (compared on their low 32
 * bits). TIOCSTI first: it was the row's only command. */
static const uint32_t cw_ioctl_cmds[] = {
	TIOCSTI, TIOCLINUX, TIOCCONS, TIOCSETD,      /* terminal injection: unrestricted */
	FIOSETOWN, SIOCSPGRP,                         /* SIGIO owner: process_control outside */
	FIOASYNC, TIOCSPGRP, TIOCSWINSZ,              /* signals the kernel sends (sigio.c) */
	/* The terminal's attributes (tcsetattr): TOSTOP makes the kernel stop
	 * the session's background jobs (sigio.c, e191). TCSETS2 and its
	 * twins by number: their macros need the kernel's struct termios2. */
	TCSETS, TCSETSW, TCSETSF, 0x402C542Bu /* TCSETS2 */, 0x402C542Cu /* TCSETSW2 */,
	0x402C542Du /* TCSETSF2 */, TCSETA, TCSETAW, TCSETAF,
	/* tcflow: TCOOFF stops the terminal's output, every writer's (e194). */
	TCXONC,
	FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS,           /* metadata through the descriptor */
	FS_IOC_FSSETXATTR, FS_IOC_SETVERSION, FS_IOC32_SETVERSION,
	/* Permanent changes to a file or directory that no write decision
	 * covers (red team e124): an encryption policy (the directory takes
	 * no new entries without the key), fscrypt keys, fs-verity (the file
	 * becomes read-only for good), btrfs subvolumes and snapshots:
	 * unrestricted. */
	FS_IOC_SET_ENCRYPTION_POLICY, FS_IOC_ADD_ENCRYPTION_KEY, FS_IOC_REMOVE_ENCRYPTION_KEY,
	FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS, FS_IOC_ENABLE_VERITY,
	BTRFS_IOC_SNAP_CREATE, BTRFS_IOC_SNAP_CREATE_V2, BTRFS_IOC_SUBVOL_CREATE,
	BTRFS_IOC_SUBVOL_CREATE_V2, BTRFS_IOC_SNAP_DESTROY, BTRFS_IOC_SNAP_DESTROY_V2,
	BTRFS_IOC_SUBVOL_SETFLAGS, BTRFS_IOC_DEFAULT_SUBVOL,
};

/* The fcntl commands that name, or signal, a descriptor's owner. */
static const uint32_t cw_fcntl_cmds[] = { F_SETOWN, F_SETOWN_EX, F_SETSIG, F_SETLEASE, F_NOTIFY };

/* The socket options net.c decides (level, optname): the ones that send
 * a datagram somewhere else than the address capwatch decided, or take
 * it out of the routing the decision assumed (e121). The rest of
 * setsockopt passes in the kernel. IPV6_2292RTHDR is not one: as a
 * socket option it only asks to receive routing headers
 * (rxopt.osrcrt); as a control message it routes (net.c refuses it
 * there). Numbers from the uapi headers, stable ABI. */
static const uint32_t cw_setsockopt_pairs[] = {
	0 /* SOL_IP */, 4 /* IP_OPTIONS: source routes (LSRR/SSRR) */,
	0 /* SOL_IP */, 19 /* IP_TRANSPARENT: non-local addresses */,
	0 /* SOL_IP */, 3 /* IP_HDRINCL: the header, destination included */,
	41 /* SOL_IPV6 */, 57 /* IPV6_RTHDR: routing headers (type 4 SRH) */,
	41 /* SOL_IPV6 */, 6 /* IPV6_2292PKTOPTIONS: sticky options, RTHDR included */,
	41 /* SOL_IPV6 */, 75 /* IPV6_TRANSPARENT */,
	41 /* SOL_IPV6 */, 36 /* IPV6_HDRINCL */,
	1 /* SOL_SOCKET */, 25 /* SO_BINDTODEVICE: routes by another device */,
	1 /* SOL_SOCKET */, 62 /* SO_BINDTOIFINDEX */,
};

/* ioctl command types (bits 8-15) passed in the kernel, but for the
 * commands above: terminals and the generic file ones ('T'), the VFS's
 * own (0x00 FIGETBSZ, 0x15 FS_IOC_GETFSUUID), sockets (0x89), the file
 * systems' ('f' ext4 and VFS flags, 'X' xfs and FS_IOC_FS[GS]ETXATTR, 0x94
 * btrfs, FICLONE, FIDEDUPERANGE), devices a decided open gave (block 0x12,
 * loop 'L', kvm 0xAE, vhost 0xAF, drm 'd', sound 'A' and 'U', video and vt
 * 'V', input 'E', 'K' consoles, rtc 'p', watchdog 'W', random 'R'), and
 * namespace and pidfd descriptors (0xB7, 0xFF). Any other type is notified
 * and refused (ioctl.c). */
#define TYPE_BIT(t) (1ull << ((t) % 64))
static const uint64_t cw_ioctl_types[4] = {
	[0] = TYPE_BIT(0x00) | TYPE_BIT(0x12) | TYPE_BIT(0x15) | TYPE_BIT(0x24),
	[1] = TYPE_BIT(0x41) | TYPE_BIT(0x45) | TYPE_BIT(0x4b) | TYPE_BIT(0x4c) | TYPE_BIT(0x52) | TYPE_BIT(0x54) |
	      TYPE_BIT(0x55) | TYPE_BIT(0x56) | TYPE_BIT(0x57) | TYPE_BIT(0x58) | TYPE_BIT(0x64) |
	      TYPE_BIT(0x66) | TYPE_BIT(0x70),
	[2] = TYPE_BIT(0x89) | TYPE_BIT(0x94) | TYPE_BIT(0xAE) | TYPE_BIT(0xAF) | TYPE_BIT(0xB7),
	[3] = TYPE_BIT(0xFF),
};
#undef TYPE_BIT

#define CW_ESCAPE_PERSONALITY (ADDR_NO_RANDOMIZE | MMAP_PAGE_ZERO | ADDR_COMPAT_LAYOUT | \
			       READ_IMPLIES_EXEC | ADDR_LIMIT_32BIT | ADDR_LIMIT_3GB)

#define ESCAPE(nm) [__NR_##nm] = { #nm, cw_handle_escape, CW_RULE_ESCAPE, 0, 0 }
#define ALLOW(nm) [__NR_##nm] = { #nm, NULL, CW_RULE_ALLOW, 0, 0 }
/* Known to capwatch, no row of its own: refused (ENOSYS) and recorded
 * under its name. */
#define REFUSE(nm) [__NR_##nm] = { #nm, cw_handle_unlisted, CW_RULE_NONE, 0, 0 }
#define ALLOW_NR(nm, nr) [nr] = { #nm, NULL, CW_RULE_ALLOW, 0, 0 }
#define REFUSE_NR(nm, nr) [nr] = { #nm, cw_handle_unlisted, CW_RULE_NONE, 0, 0 }

/* Namespace and tracing flags that escape the tracker or the filter's view
 * when passed to clone()/unshare(). clone3 is ENOSYS, so glibc falls back
 * to clone, whose flags are a register the filter can see (K25, K27). */
#define CW_ESCAPE_CLONE_FLAGS (CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | \
			       CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWCGROUP | CLONE_UNTRACED)
#define CW_ESCAPE_UNSHARE_FLAGS (CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | \
				 CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWCGROUP | CLONE_NEWTIME)

const struct cw_syscall cw_syscalls[CW_NSYSCALLS] = {
	/* --- 1. Escaping supervision altogether (unrestricted). --- */
	/* Process creation the tracker could not follow. */
	[__NR_clone3] = { "clone3", NULL, CW_RULE_ENOSYS, 0, 0 },
	[__NR_clone] = { "clone", cw_handle_escape, CW_RULE_ESCAPE_FLAGS, 0, CW_ESCAPE_CLONE_FLAGS },
	[__NR_unshare] = { "unshare", cw_handle_escape, CW_RULE_ESCAPE_FLAGS, 0, CW_ESCAPE_UNSHARE_FLAGS },
	/* A second listener would let the sandbox answer for capwatch (K14). */
	[__NR_seccomp] = { "seccomp", cw_handle_escape, CW_RULE_ESCAPE_FLAGS, 1, SECCOMP_FILTER_FLAG_NEW_LISTENER },
	/* Reaching into other processes' memory, descriptors or execution:
	 * process_control when aimed outside the tree (contract section 2);
	 * process_vm_writev inside the tree is how a sibling would rewrite a
	 * blocked target's arguments, so it is unrestricted there (proc.c). */
	[__NR_ptrace] = { "ptrace", cw_handle_proc, CW_RULE_NOTIFY, 0, 0 },
	[__NR_process_vm_readv] = { "process_vm_readv", cw_handle_proc, CW_RULE_NOTIFY, 0, 0 },
	[__NR_process_vm_writev] = { "process_vm_writev", cw_handle_proc, CW_RULE_NOTIFY, 0, 0 },
	[__NR_pidfd_getfd] = { "pidfd_getfd", cw_handle_proc, CW_RULE_NOTIFY, 0, 0 },
	/* A second path to files and syscalls the filter does not see. */
	ESCAPE(io_uring_setup),
	[__NR_io_uring_enter] = { "io_uring_enter", NULL, CW_RULE_ESCAPE_SILENT, 0, 0 },
	[__NR_io_uring_register] = { "io_uring_register", NULL, CW_RULE_ESCAPE_SILENT, 0, 0 },
	ESCAPE(open_by_handle_at),
	/* ... and its preparation: a handle, without an open. By itself a
	 * handle reads nothing (like stat); it is recorded, not decided. */
	[__NR_name_to_handle_at] = { "name_to_handle_at", cw_handle_fs_note, CW_RULE_NOTIFY, 0, 0 },
	/* Typing into the terminal capwatch was started from (the command
	 * keeps it in tty mode): input to the user's shell after we exit.
	 * The same row decides the other ioctls by what they do (ioctl.c). */
	[__NR_ioctl] = { "ioctl", cw_handle_ioctl, CW_RULE_NOTIFY_IN, 1, 0, 0, 0,
			 cw_ioctl_cmds, sizeof(cw_ioctl_cmds) / sizeof(cw_ioctl_cmds[0]),
			 cw_ioctl_types },
	/* Mounts and namespaces change what a path means; the new mount API
	 * (open_tree + move_mount) can bind-mount without mount(2). */
	ESCAPE(mount),
	ESCAPE(open_tree),
	ESCAPE(move_mount),
	ESCAPE(fsopen),
	ESCAPE(fsconfig),
	ESCAPE(fsmount),
	ESCAPE(fspick),
	ESCAPE(mount_setattr),
	ESCAPE(umount2),
	ESCAPE(pivot_root),
	ESCAPE(chroot),
	ESCAPE(setns),
	/* The kernel itself. */
	ESCAPE(bpf),
	ESCAPE(init_module),
	ESCAPE(finit_module),
	ESCAPE(delete_module),
	ESCAPE(kexec_load),
	ESCAPE(kexec_file_load),
	ESCAPE(perf_event_open),
	/* Execution domains that weaken the address space: READ_IMPLIES_EXEC
	 * makes every readable mapping executable, ADDR_NO_RANDOMIZE fixes
	 * addresses for races. Notified when a dangerous bit is set (the
	 * query personality(0xffffffff) is let through by the handler). */
	[__NR_personality] = { "personality", cw_handle_escape, CW_RULE_ESCAPE_FLAGS, 0, CW_ESCAPE_PERSONALITY, 0 },
	/* Stalls the supervisor's memory reads (K16). */
	ESCAPE(userfaultfd),
	ESCAPE(keyctl),
	ESCAPE(add_key),
	ESCAPE(request_key),
	/* Credentials: no_new_privs already blocks gains; a change makes the
	 * target non-dumpable and unreadable to an unprivileged supervisor. */
	ESCAPE(setuid),
	ESCAPE(setgid),
	ESCAPE(setreuid),
	ESCAPE(setregid),
	ESCAPE(setresuid),
	ESCAPE(setresgid),
	ESCAPE(setfsuid),
	ESCAPE(setfsgid),
	ESCAPE(setgroups),
	/* The host: clock, name, accounting, swap, power, I/O ports, quotas,
	 * the kernel log. Root's capabilities for them are dropped too
	 * (privs.h); the filter refuses them for every profile but
	 * unrestricted, and records the attempt. */
	ESCAPE(settimeofday),
	ESCAPE(clock_settime),
	ESCAPE(clock_adjtime),
	ESCAPE(sethostname),
	ESCAPE(setdomainname),
	ESCAPE(acct),
	ESCAPE(swapon),
	ESCAPE(swapoff),
	ESCAPE(reboot),
	ESCAPE(iopl),
	ESCAPE(ioperm),
	ESCAPE(quotactl),
	ESCAPE(quotactl_fd),
	ESCAPE(syslog),
	ESCAPE(vhangup),
	/* A second way to open files (the kernel opens them for the
	 * listener, with the group's mode) and permission events that can
	 * stall capwatch's own opens. */
	ESCAPE(fanotify_init),
	ESCAPE(fanotify_mark),
	ESCAPE(lookup_dcookie),

	/* --- 2. Running programs (process_spawn). --- */
	[__NR_execve] = { "execve", cw_handle_exec, CW_RULE_NOTIFY, 0, 0 },
	[__NR_execveat] = { "execveat", cw_handle_exec, CW_RULE_NOTIFY, 0, 0 },

	/* --- 3. The network (external_network, loopback, bindings, unix). --- */
	[__NR_connect] = { "connect", cw_handle_net, CW_RULE_NOTIFY, 0, 0 },
	[__NR_sendto] = { "sendto", cw_handle_net, CW_RULE_NOTIFY_ARG_SET, 4, 0 },
	[__NR_sendmsg] = { "sendmsg", cw_handle_net, CW_RULE_NOTIFY, 0, 0 },
	[__NR_sendmmsg] = { "sendmmsg", cw_handle_net, CW_RULE_NOTIFY, 0, 0 },
	[__NR_bind] = { "bind", cw_handle_net, CW_RULE_NOTIFY, 0, 0 },
	[__NR_listen] = { "listen", cw_handle_net, CW_RULE_NOTIFY, 0, 0 },
	/* Socket families other than unix, IPv4 and IPv6 reach the kernel's
	 * configuration (netlink: addresses, routes, firewall), raw links
	 * (packet) or other hosts without an address capwatch can decide. */
	[__NR_socket] = { "socket", cw_handle_net, CW_RULE_NOTIFY_UNLISTED, 0, 0, 0,
			  (1ull << AF_UNIX) | (1ull << AF_INET) | (1ull << AF_INET6) },
	/* Options that reroute what the socket sends (source routes,
	 * routing headers, device binding, transparent and raw headers):
	 * notified by (level, optname), decided as unrestricted (net.c). */
	[__NR_setsockopt] = { "setsockopt", cw_handle_net, CW_RULE_NOTIFY_PAIRS, 1, 0, 0, 0,
			      cw_setsockopt_pairs, sizeof(cw_setsockopt_pairs) / sizeof(cw_setsockopt_pairs[0]) / 2 },
	/* Reads of the error queue (MSG_ERRQUEUE): another host's ICMP
	 * errors, payload included (net.c cw_handle_errqueue). Every other
	 * receive passes in the kernel. */
	[__NR_recvfrom] = { "recvfrom", cw_handle_errqueue, CW_RULE_ESCAPE_FLAGS, 3, MSG_ERRQUEUE },
	[__NR_recvmsg] = { "recvmsg", cw_handle_errqueue, CW_RULE_ESCAPE_FLAGS, 2, MSG_ERRQUEUE },
	[__NR_recvmmsg] = { "recvmmsg", cw_handle_errqueue, CW_RULE_ESCAPE_FLAGS, 3, MSG_ERRQUEUE },

	/* --- 4. Other processes (process_control outside the tree). --- */
	[__NR_kill] = { "kill", cw_handle_signal, CW_RULE_NOTIFY, 0, 0 },
	[__NR_tkill] = { "tkill", cw_handle_signal, CW_RULE_NOTIFY, 0, 0 },
	[__NR_tgkill] = { "tgkill", cw_handle_signal, CW_RULE_NOTIFY, 0, 0 },
	[__NR_rt_sigqueueinfo] = { "rt_sigqueueinfo", cw_handle_signal, CW_RULE_NOTIFY, 0, 0 },
	[__NR_rt_tgsigqueueinfo] = { "rt_tgsigqueueinfo", cw_handle_signal, CW_RULE_NOTIFY, 0, 0 },
	[__NR_pidfd_send_signal] = { "pidfd_send_signal", cw_handle_signal, CW_RULE_NOTIFY, 0, 0 },
	[__NR_pidfd_open] = { "pidfd_open", cw_handle_proc, CW_RULE_NOTIFY, 0, 0 },
	/* Joining another group of the session: the kernel then signals that
	 * group for the joiner's use of the terminal (proc.c). */
	[__NR_setpgid] = { "setpgid", cw_handle_setpgid, CW_RULE_NOTIFY, 0, 0 },
	/* A descriptor's owner gets SIGIO (or any F_SETSIG signal) when it
	 * is ready: a kill without kill(). Only the commands that set the
	 * owner, its signal or what signals it, and F_SETFL when it turns
	 * O_ASYNC on (sigio.c), of the hottest syscall there is are
	 * notified. */
	[__NR_fcntl] = { "fcntl", cw_handle_signal, CW_RULE_NOTIFY_IN_BIT, 1, F_SETFL, O_ASYNC, 0,
			 cw_fcntl_cmds, sizeof(cw_fcntl_cmds) / sizeof(cw_fcntl_cmds[0]) },
	/* Calls naming another process by pid, group, user or pidfd: its
	 * limits, priority, scheduling, memory (issue 14 item 3; proc.c).
	 * pid 0 is the caller: those rows notify only a pid that is not 0
	 * (a 64-bit compare: a superset of the low 32 bits the kernel uses).
	 * The reading twins (getpriority, sched_get*, ioprio_get) and
	 * set_robust_list (no pid) are not decided. */
	[__NR_prlimit64] = { "prlimit64", cw_handle_pid_call, CW_RULE_NOTIFY_ARG_SET, 0, 0 },
	[__NR_setpriority] = { "setpriority", cw_handle_pid_call, CW_RULE_NOTIFY, 0, 0 },
	[__NR_ioprio_set] = { "ioprio_set", cw_handle_pid_call, CW_RULE_NOTIFY, 0, 0 },
	[__NR_sched_setscheduler] = { "sched_setscheduler", cw_handle_pid_call, CW_RULE_NOTIFY_ARG_SET, 0, 0 },
	[__NR_sched_setparam] = { "sched_setparam", cw_handle_pid_call, CW_RULE_NOTIFY_ARG_SET, 0, 0 },
	[__NR_sched_setaffinity] = { "sched_setaffinity", cw_handle_pid_call, CW_RULE_NOTIFY_ARG_SET, 0, 0 },
	[__NR_sched_setattr] = { "sched_setattr", cw_handle_pid_call, CW_RULE_NOTIFY_ARG_SET, 0, 0 },
	[__NR_migrate_pages] = { "migrate_pages", cw_handle_pid_call, CW_RULE_NOTIFY_ARG_SET, 0, 0 },
	[__NR_move_pages] = { "move_pages", cw_handle_pid_call, CW_RULE_NOTIFY_ARG_SET, 0, 0 },
	[__NR_get_robust_list] = { "get_robust_list", cw_handle_pid_call, CW_RULE_NOTIFY_ARG_SET, 0, 0 },
	[__NR_kcmp] = { "kcmp", cw_handle_pid_call, CW_RULE_NOTIFY, 0, 0 },
	[__NR_process_madvise] = { "process_madvise", cw_handle_pid_call, CW_RULE_NOTIFY, 0, 0 },
	[__NR_process_mrelease] = { "process_mrelease", cw_handle_pid_call, CW_RULE_NOTIFY, 0, 0 },

	/* --- 5. Files: writes (workspace_write, protected_metadata,
	 * unrestricted outside) and reads (filesystem_read, secrets). --- */
	[__NR_open] = { "open", cw_handle_open, CW_RULE_NOTIFY, 0, 0 },
	[__NR_openat] = { "openat", cw_handle_open, CW_RULE_NOTIFY, 0, 0 },
	[__NR_openat2] = { "openat2", cw_handle_open, CW_RULE_NOTIFY, 0, 0 },
	[__NR_creat] = { "creat", cw_handle_open, CW_RULE_NOTIFY, 0, 0 },
	[__NR_unlink] = { "unlink", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_unlinkat] = { "unlinkat", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_rmdir] = { "rmdir", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_rename] = { "rename", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_renameat] = { "renameat", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_renameat2] = { "renameat2", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_link] = { "link", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_linkat] = { "linkat", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_symlink] = { "symlink", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_symlinkat] = { "symlinkat", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_mkdir] = { "mkdir", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_mkdirat] = { "mkdirat", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_mknod] = { "mknod", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_mknodat] = { "mknodat", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_truncate] = { "truncate", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_chmod] = { "chmod", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_fchmodat] = { "fchmodat", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_fchmodat2] = { "fchmodat2", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_chown] = { "chown", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_lchown] = { "lchown", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_fchownat] = { "fchownat", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_utime] = { "utime", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_utimes] = { "utimes", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_utimensat] = { "utimensat", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_futimesat] = { "futimesat", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_setxattr] = { "setxattr", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_lsetxattr] = { "lsetxattr", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_removexattr] = { "removexattr", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_lremovexattr] = { "lremovexattr", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_fchmod] = { "fchmod", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_fchown] = { "fchown", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_fsetxattr] = { "fsetxattr", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },
	[__NR_fremovexattr] = { "fremovexattr", cw_handle_fs, CW_RULE_NOTIFY, 0, 0 },

	/* --- 6. Passed in the kernel: harmless on what the tree holds. --- */
	/* Descriptors already obtained: their capability was decided then. */
	ALLOW(read), ALLOW(write), ALLOW(close), ALLOW(pread64), ALLOW(pwrite64),
	ALLOW(readv), ALLOW(writev), ALLOW(preadv), ALLOW(pwritev), ALLOW(preadv2),
	ALLOW(pwritev2), ALLOW(lseek), ALLOW(dup), ALLOW(dup2), ALLOW(dup3),
	ALLOW(pipe), ALLOW(pipe2), ALLOW(sendfile), ALLOW(splice), ALLOW(tee),
	ALLOW(vmsplice), ALLOW(copy_file_range), ALLOW(flock), ALLOW(fsync),
	ALLOW(fdatasync), ALLOW(syncfs), ALLOW(sync), ALLOW(sync_file_range),
	ALLOW(ftruncate), ALLOW(fallocate), ALLOW(fadvise64), ALLOW(readahead),
	ALLOW(getdents), ALLOW(getdents64), ALLOW(close_range), ALLOW(cachestat),
	ALLOW(poll), ALLOW(ppoll), ALLOW(select), ALLOW(pselect6),
	ALLOW(epoll_create), ALLOW(epoll_create1), ALLOW(epoll_ctl), ALLOW(epoll_wait),
	ALLOW(epoll_pwait), ALLOW(epoll_pwait2), ALLOW(eventfd), ALLOW(eventfd2),
	ALLOW(signalfd), ALLOW(signalfd4), ALLOW(timerfd_create), ALLOW(timerfd_settime),
	ALLOW(timerfd_gettime), ALLOW(inotify_init), ALLOW(inotify_init1),
	ALLOW(inotify_add_watch), ALLOW(inotify_rm_watch), ALLOW(memfd_create),
	ALLOW(memfd_secret),
	ALLOW(io_setup), ALLOW(io_destroy), ALLOW(io_getevents), ALLOW(io_submit),
	ALLOW(io_cancel), ALLOW(io_pgetevents),
	/* Sockets whose creation, address and peer were decided (socket,
	 * connect, bind, listen, send with an address are rows above). */
	ALLOW(accept), ALLOW(accept4),
	ALLOW(shutdown), ALLOW(getsockname), ALLOW(getpeername), ALLOW(socketpair),
	ALLOW(getsockopt),
	/* Reading the file system: decided when something is opened. */
	ALLOW(stat), ALLOW(fstat), ALLOW(lstat), ALLOW(newfstatat), ALLOW(statx),
	ALLOW(statfs), ALLOW(fstatfs), ALLOW(access), ALLOW(faccessat), ALLOW(faccessat2),
	ALLOW(readlink), ALLOW(readlinkat), ALLOW(getcwd), ALLOW(chdir), ALLOW(fchdir),
	ALLOW(getxattr), ALLOW(lgetxattr), ALLOW(fgetxattr), ALLOW(listxattr),
	ALLOW(llistxattr), ALLOW(flistxattr), ALLOW(umask),
	/* The process's own memory. */
	ALLOW(mmap), ALLOW(mprotect), ALLOW(munmap), ALLOW(brk), ALLOW(mremap),
	ALLOW(msync), ALLOW(mincore), ALLOW(madvise), ALLOW(mlock), ALLOW(mlock2),
	ALLOW(munlock), ALLOW(mlockall), ALLOW(munlockall), ALLOW(remap_file_pages),
	ALLOW(mbind), ALLOW(set_mempolicy), ALLOW(get_mempolicy),
	ALLOW(set_mempolicy_home_node), ALLOW(pkey_mprotect), ALLOW(pkey_alloc),
	ALLOW(pkey_free), ALLOW(membarrier), ALLOW(map_shadow_stack),
	/* Threads, signals and time of the process itself. */
	ALLOW(rt_sigaction), ALLOW(rt_sigprocmask), ALLOW(rt_sigreturn),
	ALLOW(rt_sigpending), ALLOW(rt_sigtimedwait), ALLOW(rt_sigsuspend),
	ALLOW(sigaltstack), ALLOW(pause), ALLOW(restart_syscall), ALLOW(nanosleep),
	ALLOW(clock_nanosleep), ALLOW(clock_gettime), ALLOW(clock_getres),
	ALLOW(gettimeofday), ALLOW(time), ALLOW(adjtimex), ALLOW(getitimer),
	ALLOW(setitimer), ALLOW(alarm), ALLOW(timer_create), ALLOW(timer_settime),
	ALLOW(timer_gettime), ALLOW(timer_getoverrun), ALLOW(timer_delete),
	ALLOW(futex), ALLOW(futex_waitv), ALLOW(futex_wake), ALLOW(futex_wait),
	ALLOW(futex_requeue), ALLOW(set_robust_list),
	ALLOW(set_tid_address), ALLOW(set_thread_area), ALLOW(get_thread_area),
	ALLOW(arch_prctl), ALLOW(prctl), ALLOW(rseq), ALLOW(sched_yield),
	ALLOW(exit), ALLOW(exit_group), ALLOW(wait4), ALLOW(waitid),
	ALLOW(fork), ALLOW(vfork),
	/* Identity and limits, read (and set on itself: setrlimit, capset
	 * can only lower, setsid makes a session of the tree's own; setpgid
	 * is decided: proc.c). */
	ALLOW(getpid), ALLOW(getppid), ALLOW(gettid), ALLOW(getuid), ALLOW(geteuid),
	ALLOW(getgid), ALLOW(getegid), ALLOW(getresuid), ALLOW(getresgid),
	ALLOW(getgroups), ALLOW(getpgid), ALLOW(getpgrp), ALLOW(getsid),
	ALLOW(setsid), ALLOW(capget), ALLOW(capset), ALLOW(uname),
	ALLOW(sysinfo), ALLOW(times), ALLOW(getrusage), ALLOW(getrlimit),
	ALLOW(setrlimit), ALLOW(getcpu), ALLOW(getrandom), ALLOW(getpriority),
	ALLOW(sched_getparam), ALLOW(sched_getscheduler), ALLOW(sched_getaffinity),
	ALLOW(sched_getattr), ALLOW(sched_get_priority_max),
	ALLOW(sched_get_priority_min), ALLOW(sched_rr_get_interval), ALLOW(ioprio_get),
	/* System V and POSIX IPC: in an IPC namespace of the tree's own for
	 * root (privs.h). */
	ALLOW(shmget), ALLOW(shmat), ALLOW(shmctl), ALLOW(shmdt), ALLOW(semget),
	ALLOW(semop), ALLOW(semtimedop), ALLOW(semctl), ALLOW(msgget), ALLOW(msgsnd),
	ALLOW(msgrcv), ALLOW(msgctl), ALLOW(mq_open), ALLOW(mq_unlink),
	ALLOW(mq_timedsend), ALLOW(mq_timedreceive), ALLOW(mq_notify),
	ALLOW(mq_getsetattr),
	/* Landlock restricts the caller only. */
	ALLOW(landlock_create_ruleset), ALLOW(landlock_add_rule),
	ALLOW(landlock_restrict_self),
	/* Newer than libc's headers, by number (x86_64). Reads of a file's
	 * attributes that getxattr already gives; sealing the process's own
	 * memory; the uretprobe trampoline the kernel itself installs. */
	ALLOW_NR(uretprobe, 335), ALLOW_NR(mseal, 462), ALLOW_NR(getxattrat, 464),
	ALLOW_NR(listxattrat, 466), ALLOW_NR(file_getattr, 468),
	/* Newer calls with no handler: refused (ENOSYS), recorded. Writes
	 * (xattrs, flags, LSM attributes, mounts), and the mount table and
	 * LSM queries, which programs read from /proc when these fail. */
	REFUSE_NR(statmount, 457), REFUSE_NR(listmount, 458),
	REFUSE_NR(lsm_get_self_attr, 459), REFUSE_NR(lsm_set_self_attr, 460),
	REFUSE_NR(lsm_list_modules, 461), REFUSE_NR(setxattrat, 463),
	REFUSE_NR(removexattrat, 465), REFUSE_NR(open_tree_attr, 467),
	REFUSE_NR(file_setattr, 469),

	/* --- 7. Known, refused and recorded: nothing a build needs (the
	 * LDT, obsolete or removed calls). --- */
	REFUSE(modify_ldt),
	REFUSE(uselib), REFUSE(ustat), REFUSE(sysfs), REFUSE(_sysctl),
	REFUSE(create_module), REFUSE(get_kernel_syms), REFUSE(query_module),
	REFUSE(nfsservctl), REFUSE(getpmsg), REFUSE(putpmsg), REFUSE(afs_syscall),
	REFUSE(tuxcall), REFUSE(security), REFUSE(vserver), REFUSE(epoll_ctl_old),
	REFUSE(epoll_wait_old),
};

cw_handler_fn cw_syscall_handler(int nr)
{
	if (nr < 0 || nr >= CW_NSYSCALLS)
		return NULL;
	const struct cw_syscall *s = &cw_syscalls[nr];
	if (s->handle)
		return s->handle;
	return s->rule == CW_RULE_NONE ? cw_handle_unlisted : NULL;
}

const char *cw_syscall_name(const struct cw_run *run, int nr)
{
	if (nr >= 0 && nr < CW_NSYSCALLS) {
		if (cw_syscalls[nr].name)
			return cw_syscalls[nr].name;
		if (run->syscall_names)
			return run->syscall_names[nr];
	}
	return "unknown";
}
