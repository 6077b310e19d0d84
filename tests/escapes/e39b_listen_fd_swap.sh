#!/bin/sh
# E39 (race): listen(F) while a second thread dup2()s F between a socket
# bound to 127.0.0.1 (allowed by verify) and an unbound one, which listen
# autobinds to 0.0.0.0 (host_visible_binding, denied). capwatch decides on
# getsockname() of its pidfd_getfd duplicate and listens on that same
# duplicate. A hit is the unbound socket listening (SO_ACCEPTCONN), i.e.
# reachable from outside. Private netns. Pass = zero hits in
# $CW_RACE_SECONDS.
. "$top_srcdir/tests/escapes/lib.sh"
esc_in_netns
esc_setup
esc_need_prog e09e_net_flip
canary_make "$O/unused"
for try in 1 2 3; do
	bare "$ESC_BIN/e09e_net_flip" listen "$(race_bare_secs)"
	[ "$(race_hits "$O/bare.out")" -gt 0 ] && break
done
[ "$(race_hits "$O/bare.out")" -gt 0 ] || esc_control_failed "bare listen never landed on the unbound socket: $(race_line "$O/bare.out")"
esc_log "bare: $(race_line "$O/bare.out")"
under verify -- "$ESC_BIN/e09e_net_flip" listen "$RACE"
race_verdict "$O/unused" "listen() on a dup2-swapped fd exposed 0.0.0.0"
race_need_ok
trace_has "any(e.get('verified') is True for e in ops(syscall='listen', decision='allow'))"
