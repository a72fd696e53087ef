# netns_lib.sh: the scaffolding of the integration tests that build a cluster of network
# namespaces on a private bridge (fault_matrix.sh, netns_blame_detach.sh, netns_slow_link.sh,
# ssh_launch.sh). Sourced, not run; every function exits nonzero on failure under `set -e`.

# netns_usable PROBE: 0 when this process may create network namespaces (root or CAP_NET_ADMIN,
# and `ip`); PROBE is a namespace name of the caller's, created and removed.
netns_usable() {
    command -v ip >/dev/null && ip netns add "$1" 2>/dev/null && ip netns del "$1"
}

# netns_free_net SALT: prints a 10.X.0 whose /24 no interface of this machine uses (clusters of
# other tests may run at the same time; SALT spreads the callers' first choices).
netns_free_net() {
    local k x
    for ((k = 0; k < 128; k++)); do
        x=$((64 + ($$ + $1 + k) % 128))
        if ! ip -4 -o addr show | grep -q " 10\.$x\.0\."; then
            echo "10.$x.0"
            return 0
        fi
    done
    return 1
}

# netns_bridge_up BR NET: the bridge BR, up, at NET.1/24 (where the coordinator listens).
netns_bridge_up() {
    ip link add "$1" type bridge
    # The bridge keeps the address it has: left to itself it takes the lowest of its ports', and
    # a port removed mid-run (netns_blame_detach.sh) would change it under the nodes' ARP caches,
    # their frames to the coordinator lost until the caches expire (about a minute).
    ip link set "$1" address "$(cat "/sys/class/net/$1/address")"
    ip addr add "$2.1/24" dev "$1"
    ip link set "$1" up
}

# netns_host_up NS VETH BR ADDR: the namespace NS, its eth0 at ADDR/24 and lo up, the other end
# of its pair (VETH) on the bridge BR.
netns_host_up() {
    ip netns add "$1"
    ip link add "$2" type veth peer name eth0 netns "$1"
    ip link set "$2" master "$3" up
    ip netns exec "$1" ip addr add "$4/24" dev eth0
    ip netns exec "$1" ip link set eth0 up
    ip netns exec "$1" ip link set lo up
}
