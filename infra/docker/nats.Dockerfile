# nats-server from Debian's package on the local base, for compose where the
# nats image cannot be pulled (`make images`): the same command line as the
# official image (ENTRYPOINT nats-server), so compose's `command` fits both.
ARG BASE=debian:bookworm-slim
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nats-server \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
EXPOSE 4222 6222 8222
ENTRYPOINT ["nats-server"]
