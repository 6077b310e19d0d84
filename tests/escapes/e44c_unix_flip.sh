#!/bin/sh
# E44 (race): a unix connect() whose name changes after capwatch's check.
# "unix": a second thread flips sun_path between a socket in the workspace
# (isolated_loopback, allowed by verify) and a daemon socket outside it
# (process_control, denied). "unixlink": connect() names a workspace
# symlink that a second thread renames between links to the two sockets.
# capwatch pins the decided socket inode (O_PATH, no symlinks) and
# connects to /proc/self/fd/N. Pass = the outside daemon gets no
# connection in $CW_RACE_SECONDS for either flip.
. "$top_srcdir/tests/escapes/lib.sh"
esc_setup
esc_need_prog e09e_net_flip
mkdir "$T/run"
"$PY" "$ESC_SRC/sink.py" unix "$W/good.sock" "$O/good.log" "$O/good.ready" &
esc_bg_started $!
i=0; while [ ! -e "$O/good.ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
sink_start unix "$T/run/evil.sock"
# The server of the allowed socket under capwatch, started by the command
# itself; its log and readiness marker stay in the workspace.
cat >"$T/inside.sh" <<EOF2
"$PY" "$ESC_SRC/sink.py" unix "$W/in.sock" "$W/in.log" "$W/in.ready" &
sp=\$!
i=0; while [ ! -e "$W/in.ready" ] && [ \$i -lt 100 ]; do sleep 0.05; i=\$((i + 1)); done
"\$@"
rc=\$?
kill \$sp
exit \$rc
EOF2
for m in unix unixlink; do
	set -- "$W/good.sock" "$T/run/evil.sock"
	[ $m = unixlink ] && set -- "$W/app.sock" "$W/good.sock" "$T/run/evil.sock"
	sink_reset
	for try in 1 2 3; do
		bare "$ESC_BIN/e09e_net_flip" $m "$(race_bare_secs)" "$@"
		[ "$(race_hits "$O/bare.out")" -gt 0 ] && break
	done
	[ "$(race_hits "$O/bare.out")" -gt 0 ] && sink_wait || esc_control_failed "$m: bare flipper never reached the outside daemon: $(race_line "$O/bare.out")"
	esc_log "$m bare: $(race_line "$O/bare.out"), daemon lines $(sink_hits)"
	sink_reset
	# Under capwatch the workspace server runs inside the tree: a socket
	# file the tree did not make has an outside server (E48), which
	# verify denies like the daemon.
	shift
	[ $m = unixlink ] && shift
	rm -f "$W/in.sock" "$W/in.ready"
	set -- "$W/in.sock" "$@"
	[ $m = unixlink ] && set -- "$W/app.sock" "$@"
	under verify -- sh "$T/inside.sh" "$ESC_BIN/e09e_net_flip" $m "$RACE" "$@"
	sink_flush
	esc_log "$m under capwatch, ${RACE}s: $(race_line "$OUT"); daemon lines $(sink_hits)"
	h=$(race_hits "$OUT")
	[ "${h:-0}" = 0 ] && [ "$(sink_hits)" = 0 ] || esc_bypass "$m: connect() reached $T/run/evil.sock under --profile verify: $(race_line "$OUT"), daemon recorded $(sink_hits)"
	race_need_ok
	trace_has "any(e.get('verified') is True for e in ops(syscall='connect', decision='allow'))"
done
