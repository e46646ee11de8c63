#!/bin/sh
# Every image starts here. reward-sandbox, started as root (compose and the
# Kubernetes manifest set user 0), makes a memory/pids cgroup per execution
# slot and moves itself into a cpuacct group of its own (services/reward-sandbox
# README, Execution slots). The engine mounts the container's cgroups read-only;
# with CAP_SYS_ADMIN and a private cgroup namespace the sandbox remounts its own
# subtree writable here. Without them the remount fails and the service runs
# without slot cgroups, saying why in its log and /readyz (details.problems).
set -e
if [ "$SERVICE" = reward-sandbox ] && [ "$(id -u)" = 0 ]; then
  if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
    mount -o remount,rw /sys/fs/cgroup 2>/dev/null || echo "entrypoint: /sys/fs/cgroup stays read-only (needs CAP_SYS_ADMIN)" >&2
  else
    for c in memory pids cpu,cpuacct cpuacct cpu; do
      if [ ! -d "/sys/fs/cgroup/$c" ] || [ -L "/sys/fs/cgroup/$c" ]; then continue; fi
      mount -o remount,bind,rw "/sys/fs/cgroup/$c" 2>/dev/null || echo "entrypoint: /sys/fs/cgroup/$c stays read-only (needs CAP_SYS_ADMIN)" >&2
    done
  fi
fi
exec "$@"
