#!/usr/bin/env bash
# kernel-check: the running Linux kernel as the oracle of the sandbox's rules (issue 31).
#
# Builds small real hosts in network namespaces of its own (veth pairs with 198.18.x.y
# addresses, RPS/RFS settings, a tc ingress filter, a multi-queue veth with xps_cpus, readers
# pinned to CPUs), drives bounded traffic between those namespaces only, reads the kernel's
# counters (/proc/net/softnet_stat, tc -s, sysfs), builds the same host in the engine
# (`steerlab shell` and `steerlab run FILE --json`) and compares rule by rule. Hash-dependent
# choices are compared with the kernel's own RPS-only placement, never with the sandbox's hash.
#
# Usage (root): scripts/kernel-check.sh [--lower-backlog] [--steerlab PATH]
#   --lower-backlog  also check the backlog limit: lowers the machine-wide
#                    net.core.netdev_max_backlog for a few seconds (restored on exit)
# What it changes, for the length of the run only: the namespaces it creates (removed on exit),
# net.core.rps_sock_flow_entries (machine-wide; its value is restored on exit, even on failure),
# and with --lower-backlog net.core.netdev_max_backlog (restored likewise).
# Last line: `kernel-check: N rules checked against Linux X.Y.Z, M agree`.
set -u

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
helper="$here/kernel-check.py"
lower_backlog=0
steerlab=""
while [ $# -gt 0 ]; do
    case "$1" in
        --lower-backlog) lower_backlog=1 ;;
        --steerlab) steerlab="$2"; shift ;;
        *) echo "usage: $0 [--lower-backlog] [--steerlab PATH]" >&2; exit 2 ;;
    esac
    shift
done

release="$(uname -r)"
version="${release%%-*}"
checked=0
agreed=0
skip() { echo "SKIP  $1: $2"; }
verdict() { # rule, kernel's answer, engine's answer
    checked=$((checked + 1))
    if [ "$2" = "$3" ]; then
        agreed=$((agreed + 1))
        echo "AGREE $1: kernel $2, engine $3"
    else
        echo "DIFFER $1: kernel $2, engine $3"
    fi
}
finish() {
    echo "kernel-check: $checked rules checked against Linux $version, $agreed agree"
}

if [ "$(id -u)" != 0 ]; then
    echo "SKIP  everything: needs root (network namespaces, sysctls)"
    finish
    exit 0
fi
if ! ip netns add "slkc-probe-$$" 2>/dev/null; then
    echo "SKIP  everything: cannot create a network namespace here"
    finish
    exit 0
fi
ip netns del "slkc-probe-$$"
if [ -z "$steerlab" ]; then
    # Built (or found up to date) every time: a binary older than the sources compares
    # the kernel with another engine.
    steerlab="${CARGO_TARGET_DIR:-$root/target}/release/steerlab"
    (cd "$root" && cargo build --release --offline -q -p steerlab-cli) || { echo "cannot build steerlab" >&2; exit 1; }
fi

work="$(mktemp -d /tmp/slkc.XXXXXX)"
ns_list=()
saved_sock="$(cat /proc/sys/net/core/rps_sock_flow_entries)"
saved_backlog="$(cat /proc/sys/net/core/netdev_max_backlog)"
cleanup() {
    for n in "${ns_list[@]}"; do ip netns del "$n" 2>/dev/null; done
    echo "$saved_sock" > /proc/sys/net/core/rps_sock_flow_entries
    echo "$saved_backlog" > /proc/sys/net/core/netdev_max_backlog
    if mountpoint -q "$work/bpf" 2>/dev/null; then umount "$work/bpf"; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ncpu="$(nproc)"
case "$version" in
    6.1[89]* | 6.[2-9][0-9]* | [7-9].*) generation=6.18 ;;
    6.16* | 6.17*) generation=6.16 ;;
    6.15*) generation=6.15 ;;
    *) generation=6.10 ;;
esac
echo "Linux $version ($ncpu CPUs): the engine runs its kernel $generation rules"

# A pair of namespaces joined by a veth pair: $1 the pair's number, $2 queues per side.
# Side a (198.18.N.1) sends, side b (198.18.N.2) receives. No IPv6, static neighbours: the
# only packets on the wire are the check's own.
pair() {
    local n="$1" q="${2:-1}" a="slkc-$$-$1a" b="slkc-$$-$1b"
    ip netns add "$a" && ns_list+=("$a")
    ip netns add "$b" && ns_list+=("$b")
    ip link add va netns "$a" numtxqueues "$q" numrxqueues "$q" type veth peer vb netns "$b" numtxqueues "$q" numrxqueues "$q"
    for side in a b; do
        local ns="slkc-$$-$n$side"
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    done
    ip -n "$a" addr add "198.18.$n.1/30" dev va
    ip -n "$b" addr add "198.18.$n.2/30" dev vb
    ip -n "$a" link set va up
    ip -n "$b" link set vb up
    ip -n "$a" link set lo up
    ip -n "$b" link set lo up
    local mac_a mac_b
    mac_a="$(ip netns exec "$a" cat /sys/class/net/va/address)"
    mac_b="$(ip netns exec "$b" cat /sys/class/net/vb/address)"
    ip -n "$a" neigh replace "198.18.$n.2" lladdr "$mac_b" dev va nud permanent
    ip -n "$b" neigh replace "198.18.$n.1" lladdr "$mac_a" dev vb nud permanent
}
inb() { local n="$1"; shift; ip netns exec "slkc-$$-${n}b" "$@"; }
ina() { local n="$1"; shift; ip netns exec "slkc-$$-${n}a" "$@"; }

# Packets processed per CPU (softnet_stat column 1), space-separated.
# Column $1 of /proc/net/softnet_stat per CPU (hex), space-separated decimals: 1 processed, 2 dropped.
softnet() { python3 -c 'import sys; print(" ".join(str(int(l.split()[int(sys.argv[1]) - 1], 16)) for l in open("/proc/net/softnet_stat")))' "$1"; }
processed() { softnet 1; }
# The CPU that processed most of the packets between two `processed` readings.
busiest() {
    python3 -c 'import sys; a=list(map(int,sys.argv[1].split())); b=list(map(int,sys.argv[2].split())); d=[y-x for x,y in zip(a,b)]; m=max(range(len(d)),key=d.__getitem__); print(m if d[m]*10 >= sum(d)*7 else "none")' "$1" "$2"
}

# UDP from pair $1's side a (sender pinned to CPU 0, source port $3) to port $2, $4 datagrams.
udp_send() { ina "$1" taskset -c 0 python3 "$helper" send-udp "198.18.$1.2" "$2" "$3" "$4"; }
wait_file() { for _ in $(seq 1 100); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }

# The engine: a scenario with the same host, run for 2 s; prints its report (JSON).
engine_run() { # $1: scenario JSON
    echo "$1" > "$work/scenario.json"
    "$steerlab" run "$work/scenario.json" --json
}
jget() { python3 -c 'import json,sys; r=json.load(sys.stdin)
for k in sys.argv[1].split("."): r=r[k]
print(r)' "$1"; }
# A 2-CPU host with RPS over both CPUs and RFS, one reader pinned to CPU $1, one UDP flow whose
# socket is connected when $2 is true; $3: timeline commands (JSON array), $4: protocol.
engine_rfs() {
    local tx='null'
    [ "$2" = true ] && tx='{"rate_pps": 1, "bytes": 64, "connected": true}'
    engine_run "{\"schema\": 1, \"id\": \"kernel-check\", \"kernel\": \"$generation\",
      \"host\": {\"cpus\": 2, \"numa_nodes\": 1}, \"nic\": {\"driver\": \"generic\", \"rx_queues\": 1, \"tx_queues\": 1},
      \"rps\": {\"cpus\": \"0-1\"}, \"rfs\": {\"flow_cnt\": 1024, \"sock_flow_entries\": 32768},
      \"sim\": {\"duration_ms\": 2000},
      \"threads\": [{\"count\": 1, \"cpus\": \"$1\", \"pin\": true}],
      \"flows\": [{\"count\": 1, \"proto\": \"${4:-udp}\", \"src\": \"198.18.1.1\", \"dst\": \"198.18.1.2\", \"sport\": 40000, \"dport\": 5000,
                   \"rate_pps\": 1000, \"bytes\": 64, \"readers_per_flow\": 1, \"tx\": $tx}],
      \"timeline\": ${3:-[]}}"
}
# Whether the engine processed (nearly) every packet on its reader's CPU.
engine_follows() {
    python3 -c 'import json,sys; s=json.load(sys.stdin)["steering"]; print("follows" if s["local"]*10 >= (s["local"]+s["remote"])*8 else "stays")'
}

echo "== settings rules"
pair 9
inb 9 sh -c 'echo 300 > /sys/class/net/vb/queues/rx-0/rps_flow_cnt'
k="$(inb 9 cat /sys/class/net/vb/queues/rx-0/rps_flow_cnt)"
e="$(printf 'echo 300 > /sys/class/net/eth0/queues/rx-0/rps_flow_cnt\ncat /sys/class/net/eth0/queues/rx-0/rps_flow_cnt\n' | "$steerlab" shell | tail -1)"
verdict "rps_flow_cnt 300 is rounded up to a power of two" "$k" "$e"
echo 1000 > /proc/sys/net/core/rps_sock_flow_entries
k="$(cat /proc/sys/net/core/rps_sock_flow_entries)"
e="$(printf 'sysctl -w net.core.rps_sock_flow_entries=1000\nsysctl -n net.core.rps_sock_flow_entries\n' | "$steerlab" shell | tail -1)"
verdict "rps_sock_flow_entries 1000 is rounded up to a power of two" "$k" "$e"
if [ -e /proc/sys/net/core/flow_limit_table_len ]; then
    if inb 9 sh -c 'echo 3000 > /proc/sys/net/core/flow_limit_table_len' 2>/dev/null; then k=accepted; else k=EINVAL; fi
    e="$(printf 'sysctl -w net.core.flow_limit_table_len=3000\n' | "$steerlab" shell | grep -q 'Invalid argument' && echo EINVAL || echo accepted)"
    verdict "flow_limit_table_len 3000 (not a power of two)" "$k" "$e"
else
    skip "flow_limit_table_len and the flow limit" "this kernel has no CONFIG_NET_FLOW_LIMIT"
fi
skip "rps_default_mask for a new device" "the sandbox has no rps_default_mask"

echo "== RFS rules (pair 1: rps_cpus over every CPU on the receiver)"
if [ "$ncpu" -lt 2 ]; then
    skip "RFS and XPS rules" "one CPU: there is nowhere to move a flow"
else
    pair 1
    mask="$(printf '%x' $(( (1 << ncpu) - 1 )))"
    inb 1 sh -c "echo $mask > /sys/class/net/vb/queues/rx-0/rps_cpus"
    # The kernel's own RPS-only placement of the flow (no sock table).
    echo 0 > /proc/sys/net/core/rps_sock_flow_entries
    inb 1 taskset -c 0 python3 "$helper" recv-udp 5000 2000 & r=$!
    sleep 0.3; s0="$(processed)"; udp_send 1 5000 40000 2000; wait $r; s1="$(processed)"
    hashcpu="$(busiest "$s0" "$s1")"
    if [ "$hashcpu" = none ]; then
        skip "RFS rules" "the RPS-only placement was not clear (other traffic on this machine?)"
    else
        other=$(( hashcpu == 0 ? 1 : 0 ))
        echo "   RPS alone processes the flow on CPU $hashcpu; readers go on CPU $other"
        echo 32768 > /proc/sys/net/core/rps_sock_flow_entries
        inb 1 sh -c 'echo 1024 > /sys/class/net/vb/queues/rx-0/rps_flow_cnt'
        # A connected reader on the other CPU pulls the flow to it.
        inb 1 taskset -c "$other" python3 "$helper" recv-udp 5000 2000 198.18.1.1 40000 & r=$!
        sleep 0.3; s0="$(processed)"; udp_send 1 5000 40000 2000; wait $r; s1="$(processed)"
        [ "$(busiest "$s0" "$s1")" = "$other" ] && k=follows || k=stays
        verdict "RFS follows a connected UDP reader" "$k" "$(engine_rfs "$other" true | engine_follows)"
        # An unconnected one does not: no sk_rxhash, nothing recorded.
        inb 1 taskset -c "$other" python3 "$helper" recv-udp 5000 2000 & r=$!
        sleep 0.3; s0="$(processed)"; udp_send 1 5000 40000 2000; wait $r; s1="$(processed)"
        [ "$(busiest "$s0" "$s1")" = "$hashcpu" ] && k=ignored || k=recorded
        e="$(engine_rfs "$other" false | jget rfs.sock_flow_updates)"
        [ "$e" = 0 ] && e=ignored || e=recorded
        verdict "RFS ignores an unconnected UDP reader" "$k" "$e"
        # TCP: whatever its hash, the stream goes to its reader's CPU; both CPUs tried.
        k=follows
        for c in 0 1; do
            inb 1 taskset -c "$c" python3 "$helper" tcp-server 5001 2000000 & r=$!
            sleep 0.3; s0="$(processed)"
            ina 1 taskset -c 0 python3 "$helper" tcp-client 198.18.1.2 5001 2000000
            wait $r; s1="$(processed)"
            [ "$(busiest "$s0" "$s1")" = "$c" ] || k=stays
        done
        e="$(engine_rfs 0 true '[]' tcp | engine_follows)"
        [ "$e" = follows ] && e="$(engine_rfs 1 true '[]' tcp | engine_follows)"
        verdict "RFS follows a TCP reader" "$k" "$e"
        # A migrated reader moves its flow (once its packets already queued are processed).
        rm -f "$work/moved" "$work/ready"
        inb 1 taskset -c "$hashcpu" python3 "$helper" recv-udp 5000 1000 198.18.1.1 40000 --then-cpu "$other" --marker "$work/moved" & r=$!
        wait_file "$work/ready"; udp_send 1 5000 40000 1000; wait_file "$work/moved"; sleep 0.1
        s0="$(processed)"; udp_send 1 5000 40000 1000; sleep 0.3; s1="$(processed)"; wait $r
        [ "$(busiest "$s0" "$s1")" = "$other" ] && k=moves || k=stays
        e="$(engine_rfs "$hashcpu" true "[{\"at_ms\": 1000, \"command\": \"taskset -pc $other 0\"}]" | engine_follows)"
        [ "$e" = follows ] && e=moves || e=stays
        verdict "a migrated reader moves its flow" "$k" "$e"
        # Closing the socket clears its sock-table entry (6.16+): the flow's later packets go
        # back to their RPS CPU.
        rm -f "$work/closed" "$work/ready"
        inb 1 taskset -c "$other" python3 "$helper" recv-udp 5000 1000 198.18.1.1 40000 --then-close --marker "$work/closed" & r=$!
        wait_file "$work/ready"; udp_send 1 5000 40000 1000; wait_file "$work/closed"; wait $r; sleep 0.1
        s0="$(processed)"; udp_send 1 5000 40000 1000; sleep 0.3; s1="$(processed)"
        [ "$(busiest "$s0" "$s1")" = "$hashcpu" ] && k=cleared || k=kept
        e="$(engine_rfs "$other" true '[{"at_ms": 1000, "command": "flow close 0"}]' | jget rfs.sock_flow_deletes)"
        [ "$e" -ge 1 ] && e=cleared || e=kept
        verdict "closing a socket clears its rps_sock_flow_table entry" "$k" "$e"
    fi

    echo "== XPS (pair 2: two TX queues, tx-0 for CPU 0, tx-1 for CPU 1)"
    pair 2 2
    ina 2 tc qdisc replace dev va root handle 1: mq
    ina 2 sh -c 'echo 1 > /sys/class/net/va/queues/tx-0/xps_cpus; echo 2 > /sys/class/net/va/queues/tx-1/xps_cpus'
    ina 2 taskset -c 0 python3 "$helper" send-udp 198.18.2.2 5002 40002 300
    ina 2 taskset -c 1 python3 "$helper" send-udp 198.18.2.2 5002 40003 900
    k="$(ina 2 tc -s qdisc show dev va | awk '/parent 1:1 /{q=0} /parent 1:2 /{q=1} /Sent/{ if (q != "") { n[q]=$4; q="" } } END { print n[0]+0, n[1]+0 }')"
    [ "$k" = "300 900" ] && k="tx-0 300, tx-1 900" || k="tx queues $k"
    e="$(engine_run '{"schema": 1, "id": "kernel-check-xps", "kernel": "'"$generation"'",
      "host": {"cpus": 2}, "nic": {"driver": "generic", "rx_queues": 2, "tx_queues": 2}, "xps": {"map": "none"},
      "sim": {"duration_ms": 1000},
      "threads": [{"count": 2, "cpus": "0-1", "pin": true}],
      "flows": [{"count": 1, "proto": "udp", "src": "198.18.2.2", "dst": "198.18.2.1", "sport": 5002, "dport": 40002, "rate_pps": 0, "readers_per_flow": 1, "reader_base": 0, "tx": {"rate_pps": 300, "bytes": 64}},
                {"count": 1, "proto": "udp", "src": "198.18.2.2", "dst": "198.18.2.1", "sport": 5002, "dport": 40003, "rate_pps": 0, "readers_per_flow": 1, "reader_base": 1, "tx": {"rate_pps": 900, "bytes": 64}}],
      "timeline": [{"at_ms": 0, "command": "echo 1 > /sys/class/net/eth0/queues/tx-0/xps_cpus"},
                   {"at_ms": 0, "command": "echo 2 > /sys/class/net/eth0/queues/tx-1/xps_cpus"}]}' \
      | python3 -c 'import json,sys; q=json.load(sys.stdin)["queues"]["tx"]; print(" ".join(str(x["packets"]) for x in q))')"
    [ "$e" = "300 900" ] && e="tx-0 300, tx-1 900" || e="tx queues $e"
    verdict "the TX queue follows xps_cpus" "$k" "$e"
fi

echo "== tc (pair 3: a software filter on the receiver's ingress)"
mkdir -p "$work/bpf"
if ! zcat /proc/config.gz 2>/dev/null | grep -q '^CONFIG_NET_CLS_BPF=y'; then
    skip "tc software filters" "no cls_bpf in this kernel (and no flower to compare with)"
elif ! mount -t bpf bpf "$work/bpf" 2>/dev/null || ! python3 "$helper" bpf-drop-ipv4 "$work/bpf/drop"; then
    skip "tc software filters" "cannot load a BPF program here"
else
    pair 3
    inb 3 tc qdisc add dev vb ingress
    if inb 3 tc filter add dev vb ingress bpf direct-action pinned "$work/bpf/drop" 2>/dev/null; then
        udp_send 3 5003 40004 500
        k="$(inb 3 tc -s qdisc show dev vb ingress | awk '/dropped/ { gsub(",", ""); for (i = 1; i <= NF; i++) if ($i == "(dropped") print $(i+1) }')"
        [ "$k" = 500 ] && k="all 500 dropped and counted" || k="dropped $k of 500"
        e="$(engine_run '{"schema": 1, "id": "kernel-check-tc", "kernel": "'"$generation"'", "host": {"cpus": 2},
          "nic": {"driver": "generic", "rx_queues": 1, "tx_queues": 1}, "sim": {"duration_ms": 1000},
          "flows": [{"count": 1, "proto": "udp", "src": "198.18.3.1", "dst": "198.18.3.2", "sport": 40004, "dport": 5003, "rate_pps": 500}],
          "timeline": [{"at_ms": 0, "command": "tc qdisc add dev eth0 ingress"}, {"at_ms": 0, "command": "tc filter add dev eth0 ingress flower action drop"}]}' \
          | python3 -c 'import json,sys; r=json.load(sys.stdin); d=r["packets"]["dropped"]["tc"]; o=r["packets"]["offered"]; print("all 500 dropped and counted" if d == o == 500 else f"dropped {d} of {o}")')"
        verdict "a tc software filter drops and counts every packet it matches" "$k" "$e"
    else
        skip "tc software filters" "cls_bpf direct-action did not load"
    fi
fi

echo "== backlog"
if [ "$lower_backlog" = 1 ]; then
    pair 4
    inb 4 sh -c 'echo 1 > /sys/class/net/vb/queues/rx-0/rps_cpus'
    echo 32 > /proc/sys/net/core/netdev_max_backlog
    s0="$(softnet 2)"
    ina 4 taskset -c 1 python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(20000): s.sendto(b"x"*64, ("198.18.4.2", 5004))'
    s1="$(softnet 2)"
    echo "$saved_backlog" > /proc/sys/net/core/netdev_max_backlog
    k="$(python3 -c 'import sys; a=sys.argv[1].split(); b=sys.argv[2].split(); print("drops" if sum(int(y)-int(x) for x,y in zip(a,b)) > 0 else "none")' "$s0" "$s1")"
    e="$(engine_run '{"schema": 1, "id": "kernel-check-backlog", "kernel": "'"$generation"'", "host": {"cpus": 2},
      "nic": {"driver": "generic", "rx_queues": 1, "tx_queues": 1}, "rps": {"cpus": "0"}, "net": {"netdev_max_backlog": 32},
      "sim": {"duration_ms": 1000},
      "flows": [{"count": 1, "proto": "udp", "src": "198.18.4.1", "dst": "198.18.4.2", "sport": 40005, "dport": 5004, "rate_pps": 2000000}]}' \
      | python3 -c 'import json,sys; print("drops" if json.load(sys.stdin)["packets"]["dropped"]["backlog_full"] > 0 else "none")')"
    verdict "a flood past netdev_max_backlog is dropped at the backlog" "$k" "$e"
else
    skip "the backlog limit" "lowers the machine-wide netdev_max_backlog: run with --lower-backlog"
fi
skip "aRFS" "veth has no ndo_rx_flow_steer"
finish
