# The escape corpus (kernel-notes section 2, issue 4 item 6): one test per
# technique. Each runs the attack bare first (positive control: it must
# work, else the test fails as invalid) and then under capwatch, with a
# canary file or a sink listener in a private network namespace.
#
# ESCAPES_TESTS pass today and run in `make check`. ESCAPES_KNOWN_OPEN show
# a bypass today (reasons in tests/escapes/KNOWN-OPEN.md); they are NOT in
# TESTS and never XFAIL: `make check-escapes-open` runs them and fails while
# any is open. Move a test to ESCAPES_TESTS when its fix lands.
# CW_RACE_SECONDS (default 10) bounds each race test.

ESCAPES_TESTS = \
	tests/escapes/e129_open_with_capwatch_caps.sh \
	tests/escapes/e09e_sendto_flip.sh \
	tests/escapes/e42c_sendmsg_flip.sh \
	tests/escapes/e44c_unix_flip.sh \
	tests/escapes/e44d_unix_bind_flip.sh \
	tests/escapes/e39b_listen_fd_swap.sh \
	tests/escapes/e147_wildcard_device.sh \
	tests/escapes/e55b_mknod_device.sh \
	tests/escapes/e47b_netlink.sh \
	tests/escapes/e31b_environ_leak.sh \
	tests/escapes/e17f_device_write_flip.sh \
	tests/escapes/e17e_special_read_flip.sh \
	tests/escapes/e17d_openat2_flags_continued.sh \
	tests/escapes/e14b_bind_alias.sh \
	tests/escapes/e09d_pathcall_flip.sh \
	tests/escapes/e09c_flip_continued.sh \
	tests/escapes/e09b_sockaddr_flip.sh \
	tests/escapes/e01_devtcp.sh \
	tests/escapes/e02_interp_sockets.sh \
	tests/escapes/e03_static.sh \
	tests/escapes/e04_raw_syscall.sh \
	tests/escapes/e05_x32.sh \
	tests/escapes/e06_int80.sh \
	tests/escapes/e07_io_uring.sh \
	tests/escapes/e08_highbits.sh \
	tests/escapes/e09_thread_flip.sh \
	tests/escapes/e10_shared_flip.sh \
	tests/escapes/e11_fd_swap.sh \
	tests/escapes/e12_symlink_swap.sh \
	tests/escapes/e12b_dangling_symlink.sh \
	tests/escapes/e13_dir_swap.sh \
	tests/escapes/e14_hardlink.sh \
	tests/escapes/e15_rename_exchange.sh \
	tests/escapes/e16_proc_magic.sh \
	tests/escapes/e17_openat2.sh \
	tests/escapes/e17b_openat2_resolve.sh \
	tests/escapes/e17c_openat2_flags_race.sh \
	tests/escapes/e18_opath_upgrade.sh \
	tests/escapes/e19_dirfd_relative.sh \
	tests/escapes/e20_open_by_handle.sh \
	tests/escapes/e21_name_to_handle.sh \
	tests/escapes/e22_memfd_exec.sh \
	tests/escapes/e23_loader_exec.sh \
	tests/escapes/e24_shebang.sh \
	tests/escapes/e25_argv0_spoof.sh \
	tests/escapes/e25b_failed_exec.sh \
	tests/escapes/e26_listener.sh \
	tests/escapes/e27_inner_filter.sh \
	tests/escapes/e28_clone_untraced.sh \
	tests/escapes/e29_clone3.sh \
	tests/escapes/e30_ptrace.sh \
	tests/escapes/e31_procmem.sh \
	tests/escapes/e32_signal_outside.sh \
	tests/escapes/e32b_sigio_owner.sh \
	tests/escapes/e33_tty_stop.sh \
	tests/escapes/e34_daemonize.sh \
	tests/escapes/e35_dumpable.sh \
	tests/escapes/e36_unshare.sh \
	tests/escapes/e37_mount.sh \
	tests/escapes/e37b_mount_api.sh \
	tests/escapes/e38_chroot.sh \
	tests/escapes/e39_listen_autobind.sh \
	tests/escapes/e40_tcp_fastopen.sh \
	tests/escapes/e41_udp_sendto.sh \
	tests/escapes/e42_sendmsg_name.sh \
	tests/escapes/e42b_sendmmsg.sh \
	tests/escapes/e43_addr_alias.sh \
	tests/escapes/e44_unix_daemon.sh \
	tests/escapes/e44b_unix_symlink.sh \
	tests/escapes/e45_delegated_spawn.sh \
	tests/escapes/e46_abstract_unix.sh \
	tests/escapes/e47_socket_families.sh \
	tests/escapes/e49_inherited_fds.sh \
	tests/escapes/e50_tiocsti.sh \
	tests/escapes/e51_write_without_write.sh \
	tests/escapes/e52_mmap_shared.sh \
	tests/escapes/e53_truncate.sh \
	tests/escapes/e54_metadata_path.sh \
	tests/escapes/e54b_metadata_fd.sh \
	tests/escapes/e55_create_other.sh \
	tests/escapes/e56_fork_bomb.sh \
	tests/escapes/e57_flood.sh \
	tests/escapes/e57b_fifo_stall.sh \
	tests/escapes/e58_extreme_paths.sh \
	tests/escapes/e59_encodings.sh \
	tests/escapes/e60_log_injection.sh \
	tests/escapes/e61_preload_removal.sh \
	tests/escapes/e62_personality.sh \
	tests/escapes/e63_signal_restart.sh \
	tests/escapes/e64_pid_reuse.sh \
	tests/escapes/e65_vfork_flip.sh \
	tests/escapes/e66_thread_cwd.sh \
	tests/escapes/e67_tamper.sh \
	tests/escapes/e48_scm_rights.sh \
	tests/escapes/e68_script_swap.sh \
	tests/escapes/e17g_opath_flip.sh \
	tests/escapes/e14c_hardlink_truncate.sh \
	tests/escapes/e57c_fifo_swap.sh \
	tests/escapes/e42d_scm_credentials.sh \
	tests/escapes/e77_pidfd_capwatch.sh \
	tests/escapes/e90_keyctl.sh \
	tests/escapes/e91_perf_event_open.sh \
	tests/escapes/e80_sethostname.sh \
	tests/escapes/e81_settimeofday.sh \
	tests/escapes/e82_acct.sh \
	tests/escapes/e83_swapoff.sh \
	tests/escapes/e84_reboot.sh \
	tests/escapes/e85_fs_setflags.sh \
	tests/escapes/e86_capget.sh \
	tests/escapes/e87_sysv_shm.sh \
	tests/escapes/e88_sysv_msg.sh \
	tests/escapes/e89_posix_mq.sh \
	tests/escapes/e92_quotactl_fd.sh \
	tests/escapes/e93_listmount.sh \
	tests/escapes/e94_setxattrat.sh \
	tests/escapes/e95_file_setattr.sh \
	tests/escapes/e96_fanotify_rw.sh \
	tests/escapes/e97_fanotify_perm_stall.sh \
	tests/escapes/e106_inherited_fd_report.sh \
	tests/escapes/e107_keep_fd.sh \
	tests/escapes/e108_secret_link.sh \
	tests/escapes/e109_secret_rename.sh \
	tests/escapes/e110_secret_dir_rename.sh \
	tests/escapes/e111_prelinked_secret.sh \
	tests/escapes/e112_exec_deep_interp.sh \
	tests/escapes/e98_secret_hardlink.sh \
	tests/escapes/e99_secret_rename.sh \
	tests/escapes/e100_secret_dir_rename.sh \
	tests/escapes/e101_deep_interp.sh \
	tests/escapes/e102_unix_addr_connect.sh \
	tests/escapes/e103_unix_addr_sendmsg.sh \
	tests/escapes/e105_report_chattr.sh \
	tests/escapes/e69_pid_calls.sh \
	tests/escapes/e70_ioctl_calls.sh \
	tests/escapes/e113_deep_tree.sh \
	tests/escapes/e69_prlimit_nofile.sh \
	tests/escapes/e70_prlimit_fsize.sh \
	tests/escapes/e104_prlimit_trace.sh \
	tests/escapes/e71_setpriority.sh \
	tests/escapes/e72_sched_setaffinity.sh \
	tests/escapes/e73_sched_setscheduler.sh \
	tests/escapes/e74_ioprio_set.sh \
	tests/escapes/e75_process_madvise.sh \
	tests/escapes/e76_kcmp.sh \
	tests/escapes/e78_fiosetown.sh \
	tests/escapes/e79_siocspgrp.sh \
	tests/escapes/e127_raw_sniff.sh \
	tests/escapes/e132_setuid_create.sh \
	tests/escapes/e130_privilege_artifact.sh \
	tests/escapes/e128_secret_scan_flood.sh \
	tests/escapes/e124_fscrypt_policy.sh \
	tests/escapes/e120_key_past_prefix.sh \
	tests/escapes/e123_blockdev_read.sh \
	tests/escapes/e131_other_terminal.sh \
	tests/escapes/e122_pidfd_dir_swap.sh \
	tests/escapes/e121_ip_source_route.sh \
	tests/escapes/e126_udp_autobind.sh \
	tests/escapes/e125_reuseport_steal.sh \
	tests/escapes/e133_fat_attributes.sh \
	tests/escapes/e134_elf_interp_denied.sh \
	tests/escapes/e135_stale_exec_approval.sh \
	tests/escapes/e136_interp_ignore_mark.sh \
	tests/escapes/e138_cgroup_leave.sh \
	tests/escapes/e139_sentinel.sh \
	tests/escapes/e137_connector_blind_pid_reuse.sh \
	tests/escapes/e140_exec_unwatched_mount.sh \
	tests/escapes/e141_unreceived_restart.sh \
	tests/escapes/e143_ask_flip_denial.sh \
	tests/escapes/e145_ask_flip_allow.sh \
	tests/escapes/e146_self_approval.sh \
	tests/escapes/e144_emfile_effect.sh \
	tests/escapes/e148_setown_ns_pid.sh \
	tests/escapes/e150_kreads_deep_secret.sh \
	tests/escapes/e151_kreads_deleted_name.sh \
	tests/escapes/e152_kreads_hidden_cwd.sh \
	tests/escapes/e153_kreads_hidden_cwd_exec.sh \
	tests/escapes/e154_kreads_ns_init.sh \
	tests/escapes/e155_kreads_shm_device.sh \
	tests/escapes/e157_home_secret_symlink.sh \
	tests/escapes/e158_linked_secret_other_name.sh \
	tests/escapes/e159_linked_secret_nested.sh \
	tests/escapes/e160_linked_secret_workspace.sh \
	tests/escapes/e161_linked_secret_flink.sh \
	tests/escapes/e162_foreign_links_fill_bound.sh \
	tests/escapes/e163_kreads_reopen_emulated_fd.sh \
	tests/escapes/e164_foreign_links_realpath_stall.sh \
	tests/escapes/e165_kreads_deep_preexisting_secret.sh \
	tests/escapes/e166_kreads_devshm_workspace_reopen.sh \
	tests/escapes/e167_key_marker_defang.sh \
	tests/escapes/e168_devshm_key_content.sh \
	tests/escapes/e169_key_forgotten_by_rename.sh \
	tests/escapes/e170_stale_interp_slot.sh \
	tests/escapes/e174_exec_memfd_thread.sh \
	tests/escapes/e175_exec_clone_parent.sh \
	tests/escapes/e177_exec_late_exit.sh \
	tests/escapes/e178_exec_leaderless.sh \
	tests/escapes/e179_exec_chain.sh \
	tests/escapes/e180_exec_event_dropped.sh \
	tests/escapes/e181_sigio_owner_flip.sh \
	tests/escapes/e182_tty_signals.sh \
	tests/escapes/e183_udp_unspec_device.sh \
	tests/escapes/e184_udp_failed_connect_autobind.sh \
	tests/escapes/e185_unix_autobind_abstract.sh \
	tests/escapes/e188_async_owner_race.sh \
	tests/escapes/e187_unix_passcred_autobind.sh \
	tests/escapes/e142_connect_alarm.sh \
	tests/escapes/e189_orphaned_job_group.sh \
	tests/escapes/e190_report_dir_swap.sh \
	tests/escapes/e191_tty_tostop.sh \
	tests/escapes/e192_tostop_timeout.sh \
	tests/escapes/e193_setpgid_outside_group.sh \
	tests/escapes/e194_tcooff.sh \
	tests/escapes/e195_thread_number_adopted.sh \
	tests/escapes/e186_udp_unaddressed_autobind.sh \
	tests/escapes/e196_icmp_error_queue.sh

ESCAPES_KNOWN_OPEN = \
	tests/escapes/e156_kreads_fifo_secret.sh \
	tests/escapes/e186p_udp_autobind_portable.sh

# The attack programs (C). Built by make check; the scripts find them in
# $(top_builddir)/tests/escapes/src.
ESCAPES_PROGS = \
	tests/escapes/src/e122_pidfd_swap \
	tests/escapes/src/e03_static \
	tests/escapes/src/e04_rawsyscall \
	tests/escapes/src/e05_x32 \
	tests/escapes/src/e06_int80 \
	tests/escapes/src/e07_io_uring \
	tests/escapes/src/e09_thread_flip \
	tests/escapes/src/e09b_sockaddr_flip \
	tests/escapes/src/e09d_pathcall_flip \
	tests/escapes/src/e09e_net_flip \
	tests/escapes/src/e10_shared_flip \
	tests/escapes/src/e11_fd_swap \
	tests/escapes/src/e12_symlink_swap \
	tests/escapes/src/e13_dir_swap \
	tests/escapes/src/e17c_openat2_flags_race \
	tests/escapes/src/e17e_special_flip \
	tests/escapes/src/e20_handle \
	tests/escapes/src/e22_memfd_exec \
	tests/escapes/src/e26_listener \
	tests/escapes/src/e27_inner_filter \
	tests/escapes/src/e28_clone_untraced \
	tests/escapes/src/e29_clone3 \
	tests/escapes/src/e30_ptrace \
	tests/escapes/src/e31_procmem \
	tests/escapes/src/e56_forkbomb \
	tests/escapes/src/e57_flood \
	tests/escapes/src/e57c_fifo_swap \
	tests/escapes/src/e58_paths \
	tests/escapes/src/e63_restart \
	tests/escapes/src/e64_pid_reuse \
	tests/escapes/src/e65_vfork_flip \
	tests/escapes/src/e66_thread_cwd \
	tests/escapes/src/e69_pid_calls \
	tests/escapes/src/e70_ioctl_calls \
	tests/escapes/src/e137_cn_blind \
	tests/escapes/src/e140_exec_flip \
	tests/escapes/src/e170_stale_interp_flip \
	tests/escapes/src/e175_clone_parent \
	tests/escapes/src/e177_exec_paused_thread \
	tests/escapes/src/e178_leaderless_payload \
	tests/escapes/src/e178_fork_payload \
	tests/escapes/src/e179_chain_payload \
	tests/escapes/src/e179_fork_chain_payload \
	tests/escapes/src/e180_fork_flood \
	tests/escapes/src/e188_async_owner_race \
	tests/escapes/src/e141_unreceived_restart \
	tests/escapes/src/e142_connect_alarm \
	tests/escapes/src/e143_ask_flip \
	tests/escapes/src/payload \
	tests/escapes/src/victim \
	tests/escapes/src/canary_state
check_PROGRAMS += $(ESCAPES_PROGS)
# Every program is one source file plus the shared header.
EXTRA_DIST += tests/escapes/src/esc.h
# lib.sh's canary_state, without a Python start per check.
tests_escapes_src_canary_state_SOURCES = tests/escapes/src/canary_state.c supervisor/sha256.c supervisor/sha256.h
# No dynamic loader, so no LD_PRELOAD library (E03).
tests_escapes_src_e03_static_LDFLAGS = -all-static
# The race programs run a flipper thread.
tests_escapes_src_e141_unreceived_restart_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e141_unreceived_restart_LDFLAGS = -pthread
tests_escapes_src_e143_ask_flip_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e143_ask_flip_LDFLAGS = -pthread
tests_escapes_src_e09d_pathcall_flip_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e09d_pathcall_flip_LDFLAGS = -pthread
tests_escapes_src_e09e_net_flip_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e09e_net_flip_LDFLAGS = -pthread
tests_escapes_src_e09b_sockaddr_flip_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e09b_sockaddr_flip_LDFLAGS = -pthread
tests_escapes_src_e17c_openat2_flags_race_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e17c_openat2_flags_race_LDFLAGS = -pthread
tests_escapes_src_e17e_special_flip_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e17e_special_flip_LDFLAGS = -pthread
tests_escapes_src_e57_flood_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e180_fork_flood_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e142_connect_alarm_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e142_connect_alarm_LDFLAGS = -pthread
tests_escapes_src_e180_fork_flood_LDFLAGS = -pthread
tests_escapes_src_e188_async_owner_race_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e188_async_owner_race_LDFLAGS = -pthread
tests_escapes_src_e57_flood_LDFLAGS = -pthread
tests_escapes_src_e65_vfork_flip_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e65_vfork_flip_LDFLAGS = -pthread
tests_escapes_src_e66_thread_cwd_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e66_thread_cwd_LDFLAGS = -pthread
tests_escapes_src_e09_thread_flip_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e09_thread_flip_LDFLAGS = -pthread
tests_escapes_src_e10_shared_flip_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e10_shared_flip_LDFLAGS = -pthread
tests_escapes_src_e11_fd_swap_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e122_pidfd_swap_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e122_pidfd_swap_LDFLAGS = -pthread
tests_escapes_src_e11_fd_swap_LDFLAGS = -pthread
tests_escapes_src_e12_symlink_swap_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e12_symlink_swap_LDFLAGS = -pthread
tests_escapes_src_e13_dir_swap_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e13_dir_swap_LDFLAGS = -pthread
tests_escapes_src_e70_ioctl_calls_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e70_ioctl_calls_LDFLAGS = -pthread
tests_escapes_src_e137_cn_blind_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e137_cn_blind_LDFLAGS = -pthread
tests_escapes_src_e140_exec_flip_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e140_exec_flip_LDFLAGS = -pthread
tests_escapes_src_e170_stale_interp_flip_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e170_stale_interp_flip_LDFLAGS = -pthread
tests_escapes_src_e177_exec_paused_thread_CFLAGS = $(AM_CFLAGS) -pthread
tests_escapes_src_e177_exec_paused_thread_LDFLAGS = -pthread
# e178's payloads make no system call before their attack (no libc: its
# start-up could make a notified one, which would let check_image see
# the image while its leader lives).
tests_escapes_src_e178_leaderless_payload_SOURCES = tests/escapes/src/e178_leaderless_payload.c
tests_escapes_src_e178_leaderless_payload_CFLAGS = -O2 -fno-stack-protector -fno-pie -U_FORTIFY_SOURCE
tests_escapes_src_e178_leaderless_payload_LDFLAGS = -all-static -Xcompiler -nostdlib -Xcompiler -no-pie
tests_escapes_src_e178_fork_payload_SOURCES = tests/escapes/src/e178_leaderless_payload.c
tests_escapes_src_e178_fork_payload_CPPFLAGS = $(AM_CPPFLAGS) -DFORK_CHILD -DFORK_BURST=8
tests_escapes_src_e178_fork_payload_CFLAGS = -O2 -fno-stack-protector -fno-pie -U_FORTIFY_SOURCE
tests_escapes_src_e178_fork_payload_LDFLAGS = -all-static -Xcompiler -nostdlib -Xcompiler -no-pie
tests_escapes_src_e179_chain_payload_SOURCES = tests/escapes/src/e179_chain_payload.c
tests_escapes_src_e179_chain_payload_CFLAGS = -O2 -fno-stack-protector -fno-pie -U_FORTIFY_SOURCE
tests_escapes_src_e179_chain_payload_LDFLAGS = -all-static -Xcompiler -nostdlib -Xcompiler -no-pie
tests_escapes_src_e179_fork_chain_payload_SOURCES = tests/escapes/src/e179_chain_payload.c
tests_escapes_src_e179_fork_chain_payload_CPPFLAGS = $(AM_CPPFLAGS) -DFORK_CHILD
tests_escapes_src_e179_fork_chain_payload_CFLAGS = -O2 -fno-stack-protector -fno-pie -U_FORTIFY_SOURCE
tests_escapes_src_e179_fork_chain_payload_LDFLAGS = -all-static -Xcompiler -nostdlib -Xcompiler -no-pie

TESTS += $(ESCAPES_TESTS)
EXTRA_DIST += $(ESCAPES_TESTS) $(ESCAPES_KNOWN_OPEN) \
	tests/escapes/lib.sh tests/escapes/sink.py tests/escapes/ptyrun.py tests/escapes/pidvictims.py \
	tests/escapes/approver.py tests/escapes/peer_send.py tests/escapes/abstract_send.py \
	tests/escapes/README.md tests/escapes/KNOWN-OPEN.md

# Runs the open ones; fails while any bypass remains.
check-escapes-open: $(check_PROGRAMS) capwatch$(EXEEXT)
	$(MAKE) $(AM_MAKEFLAGS) check TESTS="$(ESCAPES_KNOWN_OPEN)"
# Everything in the corpus, open or not.
check-escapes: $(check_PROGRAMS) capwatch$(EXEEXT)
	$(MAKE) $(AM_MAKEFLAGS) check TESTS="$(ESCAPES_TESTS) $(ESCAPES_KNOWN_OPEN)"
.PHONY: check-escapes-open check-escapes
