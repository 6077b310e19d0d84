# make check-container (issue 18 item 2): the top-level Containerfile built
# with podman on a debootstrapped Debian 12 and zlib's build run in it under
# capwatch, the report read from outside. Needs root, podman, runc,
# debootstrap (tools/install-deps) and a Debian mirror for the base system
# and zlib's source; a few minutes, so not part of make check. .ci/run runs
# it after check-long.
CONTAINER_TESTS = tests/container/podman.sh
EXTRA_DIST += $(CONTAINER_TESTS) Containerfile .containerignore
check-container:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS="$(CONTAINER_TESTS)"
.PHONY: check-container
