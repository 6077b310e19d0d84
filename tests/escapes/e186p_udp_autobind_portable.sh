#!/bin/sh
# E186 under the portable back end (KNOWN OPEN, KNOWN-OPEN.md): it has no
# layer below seccomp that sees a datagram arrive, so a UDP socket the
# kernel autobinds at a write() capwatch never sees receives from the
# network. The kernel back end's ingress guard closes it (e186).
E186_BACKEND=portable exec sh "$top_srcdir/tests/escapes/e186_udp_unaddressed_autobind.sh" "$@"
