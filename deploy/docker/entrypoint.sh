#!/usr/bin/env bash
# The entrypoint of the stepnet container image (deploy/docker/Dockerfile), driven by environment
# variables (docs/deploy.md, "Containers"). The same script runs outside a container (the
# entrypoint_netns test runs it in network namespaces).
#
#   STEPNET_ROLE          coordinator | node | daemon (required)
#   STEPNET_KEY_FILE      the cluster key (default /run/secrets/stepnet.key)
#   coordinator:
#     STEPNET_TOPO        topology (required), e.g. ring:4
#     STEPNET_COLL        collective (default te)
#     STEPNET_NODES       join mode: the number of nodes expected (checked against the topology)
#     STEPNET_DAEMONS     instead: daemon addresses HOST:PORT,... (stepnet run --nodes)
#     STEPNET_LISTEN      control listener (default 0.0.0.0:7000)
#     STEPNET_REPS        measured repetitions (default 5)
#     STEPNET_ARGS        further `stepnet run` options, split on spaces (e.g. "--ports single")
#   node:
#     STEPNET_COORDINATOR the coordinator's HOST:PORT (default coordinator:7000)
#     STEPNET_ID          optional node id (stepnet-node --id)
#     STEPNET_ADVERTISE   optional address the neighbours dial (default: the node's own address
#                         towards the coordinator)
#   node and daemon:
#     STEPNET_LISTEN      daemon: its HOST:PORT (default 0.0.0.0:7100); node: the link host
#     STEPNET_PORT_RANGE  optional LO-HI for the link listener (and the coordinator's control
#                         listener when STEPNET_LISTEN has port 0)
#   STEPNET_USER          when started as root and this user exists: drop to it (the image sets
#                         stepnet)
#   STEPNET_BIN           the directory of stepnet and stepnet-node (default: on PATH)
#
# The key: stepnet refuses a key file that group or others may read. A compose secret is mounted
# with the host file's mode (or 0444 under swarm), so the key is copied into a private 0600 file
# owned by the user that runs stepnet when its mode is not accepted or the owner differs.
set -euo pipefail

die() { echo "entrypoint: $*" >&2; exit 2; }
bin=${STEPNET_BIN:+$STEPNET_BIN/}
role=${STEPNET_ROLE:-}
key=${STEPNET_KEY_FILE:-/run/secrets/stepnet.key}
case "$role" in
coordinator | node | daemon) ;;
*) die "bad value '${role}' for STEPNET_ROLE: expected coordinator, node or daemon" ;;
esac
[ -r "$key" ] || die "cannot read the cluster key STEPNET_KEY_FILE='$key' (create it with stepnet keygen; mount it as a secret)"

# the user that runs stepnet
run_as=()
user=""
if [ "$(id -u)" = 0 ] && [ -n "${STEPNET_USER:-}" ] && id -u "$STEPNET_USER" >/dev/null 2>&1; then
    user=$STEPNET_USER
    run_as=(setpriv --reuid="$(id -u "$user")" --regid="$(id -g "$user")" --init-groups --)
fi
owner=$(id -u "${user:-$(id -un)}")
mode=$(stat -L -c %a "$key")
if [ $((8#$mode & 8#077)) -ne 0 ] || [ "$(stat -L -c %u "$key")" != "$owner" ]; then
    private=$(mktemp -d "${TMPDIR:-/tmp}/stepnet-key.XXXXXX")
    install -m 600 "$key" "$private/key"
    [ -n "$user" ] && chown -R "$(id -u "$user"):$(id -g "$user")" "$private"
    key=$private/key
fi

range=()
[ -n "${STEPNET_PORT_RANGE:-}" ] && range=(--port-range "$STEPNET_PORT_RANGE")
case "$role" in
coordinator)
    topo=${STEPNET_TOPO:?STEPNET_TOPO (the topology, e.g. ring:4) is required for the coordinator}
    coll=${STEPNET_COLL:-te}
    listen=${STEPNET_LISTEN:-0.0.0.0:7000}
    if [ -n "${STEPNET_DAEMONS:-}" ]; then
        nodes=$STEPNET_DAEMONS
    else
        want=${STEPNET_NODES:?STEPNET_NODES (node count) or STEPNET_DAEMONS is required}
        [[ "$want" =~ ^[0-9]+$ ]] || die "bad value '$want' for STEPNET_NODES: expected a node count"
        have=$("${bin}stepnet" model --topo "$topo" --coll "$coll" --json |
            grep -o '"nodes":[0-9]*' | cut -d: -f2) || die "bad STEPNET_TOPO '$topo'"
        [ "$have" = "$want" ] ||
            die "STEPNET_NODES=$want, but the topology $topo has $have nodes: start as many node containers"
        nodes=join
    fi
    extra=()
    # shellcheck disable=SC2206 # split on spaces by design
    [ -n "${STEPNET_ARGS:-}" ] && extra=($STEPNET_ARGS)
    exec "${run_as[@]}" "${bin}stepnet" run --topo "$topo" --coll "$coll" --nodes "$nodes" \
        --listen "$listen" --key "$key" --reps "${STEPNET_REPS:-5}" "${range[@]}" "${extra[@]}"
    ;;
node)
    args=(--join "${STEPNET_COORDINATOR:-coordinator:7000}" --key "$key")
    [ -n "${STEPNET_ID:-}" ] && args+=(--id "$STEPNET_ID")
    [ -n "${STEPNET_LISTEN:-}" ] && args+=(--listen "$STEPNET_LISTEN")
    [ -n "${STEPNET_ADVERTISE:-}" ] && args+=(--advertise "$STEPNET_ADVERTISE")
    exec "${run_as[@]}" "${bin}stepnet-node" "${args[@]}" "${range[@]}"
    ;;
daemon)
    args=(--serve --listen "${STEPNET_LISTEN:-0.0.0.0:7100}" --key "$key")
    [ -n "${STEPNET_ID:-}" ] && args+=(--id "$STEPNET_ID")
    [ -n "${STEPNET_ADVERTISE:-}" ] && args+=(--advertise "$STEPNET_ADVERTISE")
    exec "${run_as[@]}" "${bin}stepnet-node" "${args[@]}" "${range[@]}"
    ;;
esac
