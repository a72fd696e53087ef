#!/usr/bin/env bash
# A compose cluster that really runs, without the internet (docs/deploy.md, "A compose cluster"):
#
#   1. a root file system made of stepnet and stepnet-node, the entrypoint, the few programs the
#      entrypoint calls (bash, env, id, stat, mktemp, install, chown, grep, cut, setpriv) and the
#      shared libraries of all of them (ldd, the dynamic loader), about 12 MB, becomes the image
#      stepnet:smoke with `docker import` (nothing is pulled);
#   2. deploy/compose.yaml runs with that image (STEPNET_IMAGE) under Debian's docker-compose 1.29:
#      one coordinator and four node containers, a te run on ring:4 in join mode;
#   3. the coordinator's exit status and its JSON report must say the run verified;
#   4. nothing is left behind: containers, networks, the image, the daemon and its files, and the
#      host's iptables rules, FORWARD policy, ip_forward and docker0 as they were before.
#
# The docker daemon is a private one started for the run (its own socket, data and state under a
# temporary directory) with --iptables=false --ip-forward=false --bridge=none: dockerd otherwise
# adds chains to the host's iptables, sets the FORWARD policy to DROP (which cuts other bridges'
# traffic, e.g. network-namespace labs) and turns on ip_forward. The containers only talk to each
# other on the compose network's bridge, which needs none of that. The host state is still saved
# first and restored on every exit, then checked: anything left fails the run loudly.
#
# usage: deploy/compose-smoke.sh [--bin DIR] [--timeout SECONDS]
#   --bin DIR        the directory of stepnet and stepnet-node (default: build, or the
#                    directories of $STEPNET and $STEPNET_NODE when set, as under ctest)
#   --timeout S      deadline of the run itself, from `up` to the coordinator's exit (default 180)
#   COMPOSE_SMOKE_AFTER_RUN (environment): a shell command run after the verified run, before
#                    the clean-up (the test compose_smoke leaves something behind with it on purpose)
# Exit status: 0 verified and clean, 1 failed (or something left behind), 2 bad arguments,
# 77 skipped (printed as "skipped: REASON": not root, no docker.io or docker-compose, dockerd
# starts with neither overlay2 nor vfs storage).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
say() { echo "compose-smoke: $*"; }
skip() {
    say "skipped: $*"
    exit 77
}
die() {
    say "FAIL $*" >&2
    exit 1
}

bin_dir=""
run_timeout=180
while [ $# -gt 0 ]; do
    case "$1" in
    --bin) bin_dir=${2:-} && shift 2 ;;
    --timeout) run_timeout=${2:-} && shift 2 ;;
    *)
        echo "compose-smoke: unknown argument '$1': expected --bin DIR or --timeout SECONDS" >&2
        exit 2
        ;;
    esac
done
[[ "$run_timeout" =~ ^[1-9][0-9]*$ ]] ||
    { echo "compose-smoke: bad value '$run_timeout' for --timeout: expected seconds (1 or more)" >&2 && exit 2; }
if [ -n "$bin_dir" ]; then
    stepnet=$bin_dir/stepnet stepnet_node=$bin_dir/stepnet-node
else
    stepnet=${STEPNET:-$top/build/stepnet} stepnet_node=${STEPNET_NODE:-$top/build/stepnet-node}
fi
for p in "$stepnet" "$stepnet_node"; do
    [ -x "$p" ] || { echo "compose-smoke: no program '$p': build first, or name the directory with --bin DIR" >&2 && exit 2; }
done

# --- what this machine must offer ----------------------------------------------------------------
[ "$(id -u)" = 0 ] || skip "not root (dockerd needs root)"
# Debian's client (docker.io): a statically linked docker in /usr/local/bin may come first on PATH
docker_cli=/usr/bin/docker
[ -x "$docker_cli" ] || docker_cli=$(command -v docker) || skip "no docker client (apt-get install docker.io)"
command -v dockerd >/dev/null || skip "no dockerd (apt-get install docker.io)"
command -v docker-compose >/dev/null || skip "no docker-compose (apt-get install docker-compose)"
for t in iptables ip6tables ip setpriv ldd tar; do
    command -v "$t" >/dev/null || skip "no $t"
done
# overlay2 where the kernel has overlayfs, else (or when dockerd refuses it) vfs: slower, a full
# copy of the image per container, which is 10 MB here
storages=(vfs)
grep -qw overlay /proc/filesystems && storages=(overlay2 vfs)

# --- the host's state, restored and checked on every exit -----------------------------------------
# The rules of every table as `iptables -S` lists them (policies, chains, rules; no counters): a
# table that does not exist lists as one with no rule and ACCEPT policies, which is what it is
# for the packets, so a table created empty (iptables-nft does that) is not a difference.
tables=(filter nat mangle raw)
rules() { # rules iptables|ip6tables
    local t
    for t in "${tables[@]}"; do echo "*$t" && "$1" -w 10 -t "$t" -S 2>/dev/null; done
}
restore_rules() { # restore_rules iptables|ip6tables SAVED: every table emptied, then SAVED replayed
    local t line
    for t in "${tables[@]}"; do "$1" -w 10 -t "$t" -F 2>/dev/null && "$1" -w 10 -t "$t" -X 2>/dev/null; done
    while IFS= read -r line; do
        case "$line" in
        "*"*) t=${line#\*} ;;
        # eval: -S quotes what needs quoting (comments) as a shell would
        -[PNA]" "*) eval "$1 -w 10 -t $t $line" || return 1 ;;
        esac
    done <<<"$2"
}
saved_forward=$(cat /proc/sys/net/ipv4/ip_forward)
saved_rules=$(rules iptables)
saved_rules6=$(rules ip6tables)
# docker's interfaces: docker0 (which a default dockerd makes), and the bridges of this run's
# compose network with the containers' host-side veths on them; never other programs' interfaces,
# nor those of another dockerd running meanwhile
our_bridges=()
docker_links() {
    local b
    ip link show docker0 >/dev/null 2>&1 && echo docker0
    for b in "${our_bridges[@]}"; do
        ip link show "$b" >/dev/null 2>&1 || continue
        echo "$b"
        ip -o link show master "$b" | awk -F': ' '{print $2}' | cut -d@ -f1
    done
}
saved_links=$(docker_links)

work=$(mktemp -d /tmp/snc.XXXXXX) # short: containerd's socket path must fit in 108 bytes
sock=$work/docker.sock
project=stepnetsmoke$$
image=stepnet:smoke
export DOCKER_HOST=unix://$sock
dockerd_pid=""
docker() { timeout 120 "$docker_cli" "$@"; }
compose() {
    STEPNET_IMAGE=$image STEPNET_KEY=$work/stepnet.key STEPNET_ARGS="--json" \
        timeout "${compose_timeout:-120}" docker-compose -f "$top/deploy/compose.yaml" -p "$project" "$@"
}

# processes whose command line names the private directory: this run's dockerd, containerd and
# shims, nobody else's
ours() {
    local d
    for d in /proc/[0-9]*; do
        { tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null | grep -qF "$work/" && echo "${d#/proc/}"
    done
}

# dockerd 20.10 can refuse to remove a network whose containers are all gone, "has active
# endpoints", while it is still releasing them (moby/moby#43286, docker/compose#12770): a race that
# failed this script once in CI. Its networks are removed again for 10 s; if the daemon still holds
# a stale endpoint (the bug report's second form, cured only by a daemon restart), the network's
# bridge is this private daemon's, whose state is deleted with it: the bridge is deleted after the
# daemon stops and said, not counted as left behind. Anything else in down's failure still counts.
stale_bridges=()
remove_networks_again() {
    local ids id i
    grep -q 'has active endpoints' "$work/down.log" || return 1
    grep -v -e 'has active endpoints' -e '^Removing' -e 'uses secret .* with uid, gid, or mode' \
        "$work/down.log" | grep -q . && return 1
    for i in $(seq 20); do
        ids=$("$docker_cli" network ls -q --no-trunc --filter "label=com.docker.compose.project=$project")
        [ -z "$ids" ] && { say "docker-compose down: the network was busy at first and removed on retry $i"; return 0; }
        for id in $ids; do "$docker_cli" network rm "$id" >/dev/null 2>&1; done
        sleep 0.5
    done
    for id in $ids; do stale_bridges+=("br-${id:0:12}"); done
    say "docker-compose down: dockerd still holds a stale endpoint on ${stale_bridges[*]} after 10 s (moby/moby#43286); the bridge goes with the daemon"
    return 0
}

cleanup() {
    local status=$? left=() p now
    trap - EXIT INT TERM
    if [ -n "$dockerd_pid" ] && kill -0 "$dockerd_pid" 2>/dev/null; then
        compose_timeout=60 compose down --volumes --remove-orphans --timeout 5 >"$work/down.log" 2>&1 ||
            remove_networks_again || { say "docker-compose down failed:" && cat "$work/down.log"; }
        docker rmi -f "$image" >/dev/null 2>&1
        [ -z "$(docker ps -aq 2>/dev/null)" ] || left+=("containers: $(docker ps -a --format '{{.Names}}' | tr '\n' ' ')")
        docker image inspect "$image" >/dev/null 2>&1 && left+=("the image $image")
        kill -TERM "$dockerd_pid"
        for _ in $(seq 60); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.5; done
        kill -0 "$dockerd_pid" 2>/dev/null && { left+=("dockerd (pid $dockerd_pid) ignored SIGTERM for 30 s") && kill -KILL "$dockerd_pid"; }
    fi
    for p in $(ours); do
        left+=("process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-100)")
        kill -KILL "$p" 2>/dev/null
    done
    # mounts under the private directory (overlay layers, the netns files, shm) go before the files
    # shellcheck disable=SC2013 # mount points under a mktemp directory have no spaces
    for p in $(awk -v w="$work/" 'index($5, w) == 1 {print $5}' /proc/self/mountinfo | sort -r); do
        left+=("mount $p")
        umount -l "$p"
    done
    rm -rf "$work"

    # the host, as it was
    now=$(cat /proc/sys/net/ipv4/ip_forward)
    if [ "$now" != "$saved_forward" ]; then
        left+=("net.ipv4.ip_forward was $saved_forward, found $now")
        echo "$saved_forward" >/proc/sys/net/ipv4/ip_forward
    fi
    for p in iptables ip6tables; do
        local saved=$saved_rules
        [ "$p" = ip6tables ] && saved=$saved_rules6
        [ "$(rules "$p")" = "$saved" ] && continue
        left+=("$p rules (docker's chains, the FORWARD policy): $(diff <(echo "$saved") <(rules "$p") | grep '^[<>]' | head -n 6 | tr '\n' ' ')")
        restore_rules "$p" "$saved" || left+=("$p: the saved rules could not be put back")
    done
    for p in "${stale_bridges[@]}"; do ip link delete "$p" 2>/dev/null; done
    for p in $(comm -13 <(echo "$saved_links" | sort) <(docker_links | sort)); do
        left+=("network interface $p")
        ip link delete "$p" 2>/dev/null
    done

    # checked again after the repairs: what is still different cannot be repaired here
    [ "$(cat /proc/sys/net/ipv4/ip_forward)" = "$saved_forward" ] || left+=("STILL: ip_forward")
    [ "$(rules iptables)" = "$saved_rules" ] || left+=("STILL: iptables differs from the saved rules")
    [ "$(rules ip6tables)" = "$saved_rules6" ] || left+=("STILL: ip6tables differs from the saved rules")
    [ -z "$(ours)" ] || left+=("STILL: processes of $work")
    [ "$(docker_links)" = "$saved_links" ] || left+=("STILL: docker's interfaces")
    if [ ${#left[@]} -gt 0 ]; then
        say "FAIL these were left behind (repaired where possible):" >&2
        printf '  %s\n' "${left[@]}" >&2
        exit 1
    fi
    [ "$status" = 0 ] && say "nothing left behind: no container, network, image or daemon; iptables, FORWARD policy, ip_forward and interfaces as before"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# --- a private dockerd -----------------------------------------------------------------------------
echo '{}' >"$work/daemon.json" # not /etc/docker/daemon.json: nothing of the host's configuration
refusals=()
for storage in "${storages[@]}"; do
    rm -rf "$work/data" "$work/exec"
    dockerd --config-file "$work/daemon.json" --host "unix://$sock" --data-root "$work/data" \
        --exec-root "$work/exec" --pidfile "$work/dockerd.pid" --storage-driver "$storage" \
        --iptables=false --ip-forward=false --ip-masq=false --bridge=none --userland-proxy=false \
        --log-level warn >"$work/dockerd.log" 2>&1 &
    dockerd_pid=$!
    for _ in $(seq 60); do # 30 s
        "$docker_cli" version >/dev/null 2>&1 && break 2
        kill -0 "$dockerd_pid" 2>/dev/null || break
        sleep 0.5
    done
    reason=$(grep -iE 'level=(fatal|error)|failed' "$work/dockerd.log" | tail -n 2 | tr '\n' ' ')
    refusals+=("$storage: ${reason:-no answer within 30 s}")
    kill -TERM "$dockerd_pid" 2>/dev/null
    for _ in $(seq 20); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$dockerd_pid" 2>/dev/null
    wait "$dockerd_pid" 2>/dev/null
    dockerd_pid=""
done
[ -n "$dockerd_pid" ] || skip "dockerd does not start here (${refusals[*]})"
say "dockerd $("$docker_cli" version --format '{{.Server.Version}}') (pid $dockerd_pid, $storage storage, no iptables, state in $work), client $docker_cli, $(docker-compose version --short 2>/dev/null | head -n1 | sed 's/^/docker-compose /')"

# --- the image: a root file system of the programs and their libraries -----------------------------
root=$work/root
mkdir -p "$root/usr/bin" "$root/usr/lib" "$root/usr/lib64" "$root/usr/sbin" "$root/usr/local/bin" \
    "$root/etc" "$root/tmp" "$root/run/secrets" "$root/proc" "$root/sys" "$root/dev"
chmod 1777 "$root/tmp"
# Debian 12's merged /usr: /bin/bash, /lib64/ld-linux-x86-64.so.2 and /lib/... as the programs name them
for d in bin lib lib64 sbin; do ln -s "usr/$d" "$root/$d"; done
put() { # put FILE DEST: the file's contents (symbolic links followed) at DEST in the root
    mkdir -p "$(dirname "$root$2")" && cp -L "$1" "$root$2"
}
put "$stepnet" /usr/local/bin/stepnet
put "$stepnet_node" /usr/local/bin/stepnet-node
put "$top/deploy/docker/entrypoint.sh" /usr/local/bin/stepnet-entrypoint
progs=("$stepnet" "$stepnet_node")
for t in bash env id stat mktemp install chown grep cut setpriv; do
    p=$(command -v "$t") || die "no $t on this machine to put in the image"
    put "$p" "/usr/bin/$t"
    progs+=("$p")
done
for lib in $(ldd "${progs[@]}" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $2 ~ /^\(0x/ {print $1}' | sort -u); do
    put "$lib" "$lib"
done
cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/usr/sbin/nologin
stepnet:x:10001:10001::/nonexistent:/usr/sbin/nologin
EOF
printf 'root:x:0:\nstepnet:x:10001:\n' >"$root/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$root/etc/nsswitch.conf"
size=$(du -sk "$root" | cut -f1)
tar -C "$root" -c . | docker import \
    -c 'ENTRYPOINT ["/usr/local/bin/stepnet-entrypoint"]' -c 'ENV STEPNET_USER=stepnet' \
    -c 'ENV PATH=/usr/local/bin:/usr/bin' - "$image" >/dev/null || die "docker import failed"
say "image $image imported from a root file system of $((size / 1024)) MB ($((${#progs[@]})) programs and their libraries)"

# --- the cluster --------------------------------------------------------------------------------
"$stepnet" keygen "$work/stepnet.key" >/dev/null 2>&1 || die "stepnet keygen failed"
compose up --detach --no-build --scale node=4 >"$work/up.log" 2>&1 ||
    { cat "$work/up.log" >&2 && die "docker-compose up failed (above)"; }
for id in $("$docker_cli" network ls -q --no-trunc --filter driver=bridge); do
    our_bridges+=("br-${id:0:12}")
done
coordinator=$(compose ps -q coordinator 2>/dev/null)
[ -n "$coordinator" ] || die "no coordinator container after docker-compose up"
mapfile -t nodes < <(compose ps -q node 2>/dev/null)
[ ${#nodes[@]} = 4 ] || die "${#nodes[@]} node containers after --scale node=4"
if ! status=$(timeout "$run_timeout" "$docker_cli" wait "$coordinator"); then
    compose logs --no-color --tail 40 >&2
    die "the coordinator did not exit within --timeout $run_timeout s"
fi
"$docker_cli" logs "$coordinator" >"$work/report.json" 2>"$work/coordinator.log"
if [ "$status" != 0 ] || ! grep -q '"verified":true' "$work/report.json"; then
    cat "$work/coordinator.log" "$work/report.json" >&2
    compose logs --no-color --tail 20 node >&2
    die "the coordinator exited with status $status without a verified run (its output above)"
fi
for want in '"nodes_mode":"join"' '"nodes":4' '"topology":"ring:4"'; do
    grep -qF "$want" "$work/report.json" || die "the report has no $want: $(head -c 300 "$work/report.json")"
done
for n in "${nodes[@]}"; do
    s=$(timeout 60 "$docker_cli" wait "$n") || die "node container $n still running 60 s after the run"
    [ "$s" = 0 ] || { "$docker_cli" logs "$n" >&2; die "node container $n exited with status $s"; }
done
# for the test compose_smoke: something left behind on purpose, which the clean-up must find
# (it sees DOCKER_HOST, and the image and network names as SMOKE_IMAGE and SMOKE_NETWORK)
if [ -n "${COMPOSE_SMOKE_AFTER_RUN:-}" ]; then
    SMOKE_IMAGE=$image SMOKE_NETWORK=${project}_stepnet bash -c "$COMPOSE_SMOKE_AFTER_RUN" ||
        die "COMPOSE_SMOKE_AFTER_RUN failed"
fi
say "verified: ring:4 te in 5 containers (1 coordinator, 4 nodes), $(grep -o '"wall_us_median":[0-9.]*' "$work/report.json")"
