# Offline image of one proxy catalog version (proxybench/<proxy>:<version>), built by
# notebooks/02-stacks.mjs (lib/setup/images/build.ts). One file for all five proxies. Build
# context: a temp dir with this file and rootfs/, which holds the cached binary (a wheel's,
# with its vendored libraries) at its absolute host path, or nothing for a Debian package:
# the binary ends up at the SAME path as on the host, so the command line the harness builds
# (lib/roles/proxy.ts) runs unchanged in the container.
# Build args, from stacks/<proxy>/stack.yaml:
#   PACKAGES      the Debian package pinned to the host's installed version (source debian), else empty
#   BINARY        absolute path of the binary (checked, and its version printed, below)
#   VERSION_ARGS  the arguments that make the binary print its version (-v, --version, version)
ARG BASE=proxybench/base:bookworm
FROM ${BASE}
ARG PACKAGES=
ARG BINARY
ARG VERSION_ARGS=--version
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
RUN if [ -n "$PACKAGES" ]; then apt-get update -q && apt-get install -y -q --no-install-recommends $PACKAGES && rm -rf /var/lib/apt/lists/*; fi
COPY rootfs/ /
# Every directory above the binary must be traversable by the unprivileged container user
# (a cached wheel lives under the host's ~/.cache, e.g. /root/.cache).
RUN set -e; test -x "$BINARY"; d=$(dirname "$BINARY"); while [ "$d" != / ]; do chmod o+x "$d"; d=$(dirname "$d"); done; "$BINARY" $VERSION_ARGS 2>&1 | head -1
