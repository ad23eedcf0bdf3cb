#!/usr/bin/env bash
# kernel-check: the running Linux kernel as the oracle of the sandbox's rules (issues 31, 51).
#
# Builds small real hosts in network namespaces of its own (veth pairs with 198.18.x.y
# addresses, RPS/RFS settings, tc ingress filters, a multi-queue veth with xps_cpus, readers
# pinned to CPUs), drives bounded traffic between those namespaces only, reads the kernel's
# counters (/proc/net/softnet_stat, tc -s, sysfs), builds the same host in the engine
# (`steerlab shell` and `steerlab run FILE --json`) and compares rule by rule. Each check is
# chosen so that an engine without the rule would answer otherwise: a hash-dependent placement
# is compared with each side's own RPS-only placement (the kernel's hash is seeded per boot, the
# engine's per scenario), never with the other's.
#
# Usage (root): scripts/kernel-check.sh [--lower-backlog] [--lower-budget] [--steerlab PATH]
#                                       [--only REGEX] [--results FILE] [--report]
#   --lower-backlog  also check the backlog limit: lowers the machine-wide
#                    net.core.netdev_max_backlog for a few seconds (restored on exit)
#   --lower-budget   also check time_squeeze under the softirq's budget: lowers the
#                    machine-wide net.core.netdev_budget to 1 for a few seconds (restored on
#                    exit; every net_rx_action run of the machine then stops after one poll)
#   --steerlab PATH  the CLI to compare (default: built here, release)
#   --only REGEX     only the checks whose rule matches REGEX (grep -E)
#   --results FILE   also write each verdict as a JSON line {rule, kernel, engine, verdict}
#   --report         run every check three times, then regenerate FIDELITY.md and
#                    web/fidelity.html (scripts/fidelity-report.py) from the verdicts
# What it changes, for the length of the run only: the namespaces it creates (removed on exit),
# net.core.rps_sock_flow_entries (machine-wide; its value is restored on exit, even on
# failure), with --lower-backlog net.core.netdev_max_backlog and with --lower-budget
# net.core.netdev_budget (both restored likewise).
# Exit status: 0 when every checked rule agrees, 1 when one differs, 2 on a usage error.
# Last line: `kernel-check: N rules checked against Linux X.Y.Z, M agree`.
set -u

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
helper="$here/kernel-check.py"
lower_backlog=0
lower_budget=0
steerlab=""
only=""
results=""
report=0
while [ $# -gt 0 ]; do
    case "$1" in
        --lower-backlog) lower_backlog=1 ;;
        --lower-budget) lower_budget=1 ;;
        --steerlab) steerlab="$2"; shift ;;
        --only) only="$2"; shift ;;
        --results) results="$2"; shift ;;
        --report) report=1 ;;
        *) echo "usage: $0 [--lower-backlog] [--lower-budget] [--steerlab PATH] [--only REGEX] [--results FILE] [--report]" >&2; exit 2 ;;
    esac
    shift
done
if [ "$report" = 1 ]; then
    # The report's runs: every check three times (placements as distributions, measured
    # quantities with their intervals), then FIDELITY.md and web/fidelity.html from them.
    if [ -z "$steerlab" ]; then
        steerlab="${CARGO_TARGET_DIR:-$root/target}/release/steerlab"
        (cd "$root" && cargo build --release --offline -q -p steerlab-cli) || { echo "cannot build steerlab" >&2; exit 1; }
    fi
    files=()
    status=0
    for i in 1 2 3; do
        f="$(mktemp /tmp/slkc-results.XXXXXX)"
        files+=(--results "$f")
        extra=()
        [ "$lower_backlog" = 1 ] && extra+=(--lower-backlog)
        [ "$lower_budget" = 1 ] && extra+=(--lower-budget)
        [ -n "$only" ] && extra+=(--only "$only")
        echo "== run $i of 3"
        bash "$0" --steerlab "$steerlab" --results "$f" "${extra[@]}" || status=1
    done
    python3 "$here/fidelity-report.py" "${files[@]}" --steerlab "$steerlab" > "$root/FIDELITY.md" || exit 1
    echo "wrote FIDELITY.md and web/fidelity.html"
    rm -f "${files[@]/--results/}"
    exit "$status"
fi
[ -n "$results" ] && : > "$results"

release="$(uname -r)"
version="${release%%-*}"
checked=0
agreed=0
# Whether the check of rule $1 runs (--only: REGEX matches the rule's text).
wanted() { [ -z "$only" ] || echo "$1" | grep -Eq -- "$only"; }
record() { # verdict, rule, kernel, engine / reason
    [ -n "$results" ] || return 0
    python3 -c 'import json,sys; print(json.dumps(dict(zip(["verdict","rule","kernel","engine"], sys.argv[1:]))))' "$@" >> "$results"
}
skip() {
    wanted "$1" || return 0
    echo "SKIP  $1: $2"
    record skip "$1" "$2" ""
}
verdict() { # rule, kernel's answer, engine's answer
    checked=$((checked + 1))
    if [ "$2" = "$3" ]; then
        agreed=$((agreed + 1))
        echo "AGREE $1: kernel $2, engine $3"
        record agree "$1" "$2" "$3"
    else
        echo "DIFFER $1: kernel $2, engine $3"
        record differ "$1" "$2" "$3"
    fi
}
measure() { # quantity, kernel's value, engine's value (numbers, for the report's part C)
    echo "MEASURE $1: kernel $2, engine $3"
    record measure "$1" "$2" "$3"
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
saved_budget="$(cat /proc/sys/net/core/netdev_budget)"
saved_flow_limit=""
[ -e /proc/sys/net/core/flow_limit_table_len ] && saved_flow_limit="$(cat /proc/sys/net/core/flow_limit_table_len)"
cleanup() {
    for n in "${ns_list[@]}"; do ip netns del "$n" 2>/dev/null; done
    echo "$saved_sock" > /proc/sys/net/core/rps_sock_flow_entries
    echo "$saved_backlog" > /proc/sys/net/core/netdev_max_backlog
    echo "$saved_budget" > /proc/sys/net/core/netdev_budget
    [ -n "$saved_flow_limit" ] && echo "$saved_flow_limit" > /proc/sys/net/core/flow_limit_table_len
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
[ -n "$results" ] && python3 "$helper" testbed "$version" "$generation" >> "$results"

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

# Column $1 of /proc/net/softnet_stat per CPU (hex), space-separated decimals: 1 processed,
# 2 dropped, 10 received_rps.
softnet() { python3 -c 'import sys; print(" ".join(str(int(l.split()[int(sys.argv[1]) - 1], 16)) for l in open("/proc/net/softnet_stat")))' "$1"; }
processed() { softnet 1; }
# The CPU that processed most of the packets between two `processed` readings.
busiest() {
    python3 -c 'import sys; a=list(map(int,sys.argv[1].split())); b=list(map(int,sys.argv[2].split())); d=[y-x for x,y in zip(a,b)]; m=max(range(len(d)),key=d.__getitem__); print(m if d[m]*10 >= sum(d)*7 else "none")' "$1" "$2"
}
# The share of the packets processed between two `processed` readings that CPU $1 processed.
share() {
    python3 -c 'import sys; a=list(map(int,sys.argv[2].split())); b=list(map(int,sys.argv[3].split())); d=[y-x for x,y in zip(a,b)]; print(round(d[int(sys.argv[1])]/max(1,sum(d)), 4))' "$1" "$2" "$3"
}
# The share of an engine run's packets processed on CPU $1.
engine_share() {
    python3 -c 'import json,sys; c=json.load(sys.stdin)["cpus"]; p=[x["packets"] for x in c]; print(round(p[int(sys.argv[1])]/max(1,sum(p)), 4))' "$1"
}
# The CPUs whose column grew between two readings, as "cpu 1" or "cpus 0 1" or "none".
grew() {
    python3 -c 'import sys; a=sys.argv[1].split(); b=sys.argv[2].split(); g=[str(i) for i,(x,y) in enumerate(zip(a,b)) if int(y)>int(x)]; print(("cpu " if len(g)==1 else "cpus ")+" ".join(g) if g else "none")' "$1" "$2"
}

# UDP from pair $1's side a (sender pinned to CPU 0, source port $3) to port $2, $4 datagrams
# (then send-udp's options: --bytes N).
udp_send() { ina "$1" taskset -c 0 python3 "$helper" send-udp "198.18.$1.2" "$2" "$3" "$4" "${@:5}"; }
wait_file() { for _ in $(seq 1 100); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }
# A write to a sysfs or proc file as the kernel answers it: `ok VALUE-READ-BACK` or the errno.
kwrite() { python3 "$helper" write "$@"; }

# The engine: a scenario run to its end; prints its report (JSON).
engine_run() { # $1: scenario JSON
    echo "$1" > "$work/scenario.json"
    "$steerlab" run "$work/scenario.json" --json
}
jget() { python3 -c 'import json,sys; r=json.load(sys.stdin)
for k in sys.argv[1].split("."): r=r[int(k)] if isinstance(r, list) else r[k]
print(r)' "$1"; }
# The engine's console on a host of this machine's CPUs (one queue each way): a write's
# answer as `kwrite` gives the kernel's (`ok VALUE` or the errno), $1 the file, $2 the value.
ehost="{\"schema\": 1, \"id\": \"kernel-check\", \"kernel\": \"$generation\", \"host\": {\"cpus\": $ncpu, \"numa_nodes\": 1},
  \"nic\": {\"driver\": \"generic\", \"rx_queues\": 1, \"tx_queues\": 1}, \"sim\": {\"duration_ms\": 1000}}"
echo "$ehost" > "$work/host.json"
ewrite() { # $1 file, $2 value, $3 the host (default: one queue each way)
    local out
    out="$(printf 'echo %s > %s\ncat %s\n' "$2" "$1" "$1" | "$steerlab" shell --scenario "${3:-$work/host.json}" 2>&1)"
    python3 "$helper" answer "$out"
}
echo "${ehost/\"tx_queues\": 1/\"tx_queues\": 2}" > "$work/host2.json"
esysctl() { # $1 key, $2 value
    local out
    out="$(printf 'sysctl -w %s=%s\nsysctl -n %s\n' "$1" "$2" "$1" | "$steerlab" shell --scenario "$work/host.json" 2>&1)"
    python3 "$helper" answer "$out"
}
# The engine's 2-CPU host (this machine's CPUs) with RPS over every CPU and RFS: one reader
# pinned to CPU $1, one UDP flow whose socket is connected when $2 is true; $3 timeline
# commands (JSON array), $4 protocol, $5 rps_sock_flow_entries, $6 rps_flow_cnt.
engine_rfs() {
    local tx='null'
    [ "$2" = true ] && tx='{"rate_pps": 1, "bytes": 64, "connected": true}'
    engine_run "{\"schema\": 1, \"id\": \"kernel-check\", \"kernel\": \"$generation\",
      \"host\": {\"cpus\": $ncpu, \"numa_nodes\": 1}, \"nic\": {\"driver\": \"generic\", \"rx_queues\": 1, \"tx_queues\": 1},
      \"rps\": {\"cpus\": \"0-$((ncpu - 1))\"}, \"rfs\": {\"flow_cnt\": ${6:-1024}, \"sock_flow_entries\": ${5:-32768}},
      \"sim\": {\"duration_ms\": 2000},
      \"threads\": [{\"count\": 1, \"cpus\": \"$1\", \"pin\": true}],
      \"flows\": [{\"count\": 1, \"proto\": \"${4:-udp}\", \"src\": \"198.18.1.1\", \"dst\": \"198.18.1.2\", \"sport\": 40000, \"dport\": 5000,
                   \"rate_pps\": 1000, \"bytes\": 64, \"readers_per_flow\": 1, \"tx\": $tx}],
      \"timeline\": ${3:-[]}}"
}
# The CPU that processed (nearly) all of an engine run's packets, or "none".
engine_busiest() {
    python3 -c 'import json,sys; c=json.load(sys.stdin)["cpus"]; p=[x["packets"] for x in c]; m=max(range(len(p)),key=p.__getitem__); print(m if p[m]*10 >= sum(p)*7 else "none")'
}
# Whether the engine processed (nearly) every packet on its reader's CPU.
engine_follows() {
    python3 -c 'import json,sys; s=json.load(sys.stdin)["steering"]; print("follows" if s["local"]*10 >= (s["local"]+s["remote"])*8 else "stays")'
}

echo "== settings (sysfs and sysctl writes: pair 9's receiver, and the machine's sysctls)"
if true; then
    pair 9
    f=/sys/class/net/vb/queues/rx-0/rps_flow_cnt
    e=/sys/class/net/eth0/queues/rx-0/rps_flow_cnt
    for v in 300 65537 -1; do
        case "$v" in
            300) rule="rps_flow_cnt 300 is rounded up to a power of two" ;;
            65537) rule="rps_flow_cnt above 65536 is rounded up, not refused" ;;
            -1) rule="a negative rps_flow_cnt is refused" ;;
        esac
        wanted "$rule" && verdict "$rule" "$(inb 9 python3 "$helper" write "$f" "$v")" "$(ewrite "$e" "$v")"
    done
    s=/proc/sys/net/core/rps_sock_flow_entries
    for v in 1000 536870913; do
        case "$v" in
            1000) rule="rps_sock_flow_entries 1000 is rounded up to a power of two" ;;
            *) rule="rps_sock_flow_entries above 2^29 is refused" ;;
        esac
        wanted "$rule" && verdict "$rule" "$(kwrite "$s" "$v")" "$(esysctl net.core.rps_sock_flow_entries "$v")"
    done
    echo "$saved_sock" > /proc/sys/net/core/rps_sock_flow_entries
    beyond="$(printf '%x' $((1 << ncpu)))"
    all="$(printf '%x' $(( (1 << ncpu) - 1 )))"
    rule="rps_cpus naming a CPU the host lacks is refused"
    wanted "$rule" && verdict "$rule" "$(inb 9 python3 "$helper" write /sys/class/net/vb/queues/rx-0/rps_cpus "$beyond")" \
        "$(ewrite /sys/class/net/eth0/queues/rx-0/rps_cpus "$beyond")"
    rule="rps_cpus reads back as the host's CPU mask"
    wanted "$rule" && verdict "$rule" "$(inb 9 python3 "$helper" write /sys/class/net/vb/queues/rx-0/rps_cpus "$all")" \
        "$(ewrite /sys/class/net/eth0/queues/rx-0/rps_cpus "$all")"
    rule="a device with one TX queue refuses xps_cpus (no XPS)"
    wanted "$rule" && verdict "$rule" "$(inb 9 python3 "$helper" write /sys/class/net/vb/queues/tx-0/xps_cpus 1)" \
        "$(ewrite /sys/class/net/eth0/queues/tx-0/xps_cpus 1)"
    rule="flow_limit_table_len 3000 (not a power of two) is refused"
    if [ -n "$saved_flow_limit" ]; then
        # The flow limit's sysctls exist in the initial namespace only (net/core/sysctl_net_core.c).
        wanted "$rule" && verdict "$rule" "$(kwrite /proc/sys/net/core/flow_limit_table_len 3000)" \
            "$(esysctl net.core.flow_limit_table_len 3000)"
        echo "$saved_flow_limit" > /proc/sys/net/core/flow_limit_table_len
    else
        skip "$rule" "this kernel has no CONFIG_NET_FLOW_LIMIT (no /proc/sys/net/core/flow_limit_table_len in the initial namespace)"
    fi
fi

echo "== RPS and RFS (pair 1: veth, the sender on CPU 0, so the receive runs on CPU 0 unless RPS moves it)"
if [ "$ncpu" -lt 2 ]; then
    skip "RPS, RFS and XPS rules" "one CPU: there is nowhere to move a flow"
else
    pair 1
    last=$((ncpu - 1))
    echo 0 > /proc/sys/net/core/rps_sock_flow_entries
    rule="without an RPS map the receiving CPU processes every packet"
    if wanted "$rule"; then
        inb 1 taskset -c "$last" python3 "$helper" recv-udp 5000 500 & r=$!
        sleep 0.3; s0="$(processed)"; udp_send 1 5000 40000 500; wait $r; s1="$(processed)"
        k="cpu $(busiest "$s0" "$s1")"
        e="cpu $(engine_run "{\"schema\": 1, \"id\": \"kc\", \"kernel\": \"$generation\", \"host\": {\"cpus\": $ncpu},
          \"nic\": {\"driver\": \"generic\", \"rx_queues\": 1, \"tx_queues\": 1}, \"sim\": {\"duration_ms\": 1000},
          \"threads\": [{\"count\": 1, \"cpus\": \"$last\", \"pin\": true}],
          \"flows\": [{\"count\": 1, \"proto\": \"udp\", \"src\": \"198.18.1.1\", \"dst\": \"198.18.1.2\", \"sport\": 40000, \"dport\": 5000, \"rate_pps\": 500, \"readers_per_flow\": 1}]}" | engine_busiest)"
        verdict "$rule" "$k" "$e"
    fi
    rule="an RPS map of one CPU sends every packet there, and that CPU counts received_rps"
    if wanted "$rule"; then
        inb 1 sh -c "printf '%x' $((1 << last)) > /sys/class/net/vb/queues/rx-0/rps_cpus"
        inb 1 taskset -c 0 python3 "$helper" recv-udp 5000 500 & r=$!
        sleep 0.3; s0="$(processed)"; i0="$(softnet 10)"; udp_send 1 5000 40000 500; wait $r; s1="$(processed)"; i1="$(softnet 10)"
        k="processed on cpu $(busiest "$s0" "$s1"), received_rps on $(grew "$i0" "$i1")"
        e="$(engine_run "{\"schema\": 1, \"id\": \"kc\", \"kernel\": \"$generation\", \"host\": {\"cpus\": $ncpu},
          \"nic\": {\"driver\": \"generic\", \"rx_queues\": 1, \"tx_queues\": 1}, \"rps\": {\"cpus\": \"$last\"}, \"sim\": {\"duration_ms\": 1000},
          \"threads\": [{\"count\": 1, \"cpus\": \"0\", \"pin\": true}],
          \"flows\": [{\"count\": 1, \"proto\": \"udp\", \"src\": \"198.18.1.1\", \"dst\": \"198.18.1.2\", \"sport\": 40000, \"dport\": 5000, \"rate_pps\": 500, \"readers_per_flow\": 1}]}" \
          | python3 -c 'import json,sys; c=json.load(sys.stdin)["cpus"]; p=[x["packets"] for x in c]; m=max(range(len(p)),key=p.__getitem__)
g=[str(x["cpu"]) for x in c if x["received_rps"] > 0]
print(f"processed on cpu {m if p[m]*10 >= sum(p)*7 else None}, received_rps on " + ((("cpu " if len(g)==1 else "cpus ")+" ".join(g)) if g else "none"))')"
        verdict "$rule" "$k" "$e"
    fi
    mask="$(printf '%x' $(( (1 << ncpu) - 1 )))"
    inb 1 sh -c "echo $mask > /sys/class/net/vb/queues/rx-0/rps_cpus"
    # Each side's own RPS-only placement of the flow (no sock table): the kernel's hash is
    # seeded at boot, the engine's by its scenario.
    inb 1 taskset -c 0 python3 "$helper" recv-udp 5000 2000 & r=$!
    sleep 0.3; s0="$(processed)"; udp_send 1 5000 40000 2000; wait $r; s1="$(processed)"
    hashcpu="$(busiest "$s0" "$s1")"
    ehash="$(engine_rfs 0 true '[]' udp 0 | engine_busiest)"
    if [ "$hashcpu" = none ] || [ "$ehash" = none ]; then
        skip "RFS rules" "the RPS-only placement was not clear (kernel: $hashcpu, engine: $ehash; other traffic on this machine?)"
    else
        other=$(( hashcpu == 0 ? 1 : 0 ))
        eother=$(( ehash == 0 ? 1 : 0 ))
        echo "   RPS alone processes the flow on CPU $hashcpu (engine: CPU $ehash); readers go on CPU $other (engine: CPU $eother)"
        echo 32768 > /proc/sys/net/core/rps_sock_flow_entries
        inb 1 sh -c 'echo 1024 > /sys/class/net/vb/queues/rx-0/rps_flow_cnt'
        rule="RFS follows a connected UDP reader"
        if wanted "$rule"; then
            inb 1 taskset -c "$other" python3 "$helper" recv-udp 5000 2000 198.18.1.1 40000 & r=$!
            sleep 0.3; s0="$(processed)"; udp_send 1 5000 40000 2000; wait $r; s1="$(processed)"
            [ "$(busiest "$s0" "$s1")" = "$other" ] && k=follows || k=stays
            out="$(engine_rfs "$eother" true)"
            verdict "$rule" "$k" "$(echo "$out" | engine_follows)"
            measure "share of a connected UDP reader's packets processed on its CPU (RFS)" "$(share "$other" "$s0" "$s1")" "$(echo "$out" | engine_share "$eother")"
        fi
        rule="RFS ignores an unconnected UDP reader (no sk_rxhash)"
        if wanted "$rule"; then
            inb 1 taskset -c "$other" python3 "$helper" recv-udp 5000 2000 & r=$!
            sleep 0.3; s0="$(processed)"; udp_send 1 5000 40000 2000; wait $r; s1="$(processed)"
            [ "$(busiest "$s0" "$s1")" = "$hashcpu" ] && k=ignored || k=followed
            out="$(engine_rfs "$eother" false)"
            [ "$(echo "$out" | engine_busiest)" = "$ehash" ] && e=ignored || e=followed
            verdict "$rule" "$k" "$e"
            measure "share of an unconnected UDP reader's packets processed on its RPS CPU" "$(share "$hashcpu" "$s0" "$s1")" "$(echo "$out" | engine_share "$ehash")"
        fi
        rule="rps_sock_flow_entries 0 turns RFS off"
        if wanted "$rule"; then
            echo 0 > /proc/sys/net/core/rps_sock_flow_entries
            inb 1 taskset -c "$other" python3 "$helper" recv-udp 5000 2000 198.18.1.1 40000 & r=$!
            sleep 0.3; s0="$(processed)"; udp_send 1 5000 40000 2000; wait $r; s1="$(processed)"
            echo 32768 > /proc/sys/net/core/rps_sock_flow_entries
            [ "$(busiest "$s0" "$s1")" = "$hashcpu" ] && k=off || k=on
            [ "$(engine_rfs "$eother" true '[]' udp 0 | engine_busiest)" = "$ehash" ] && e=off || e=on
            verdict "$rule" "$k" "$e"
        fi
        rule="rps_flow_cnt 0 on the queue turns RFS off"
        if wanted "$rule"; then
            inb 1 sh -c 'echo 0 > /sys/class/net/vb/queues/rx-0/rps_flow_cnt'
            inb 1 taskset -c "$other" python3 "$helper" recv-udp 5000 2000 198.18.1.1 40000 & r=$!
            sleep 0.3; s0="$(processed)"; udp_send 1 5000 40000 2000; wait $r; s1="$(processed)"
            inb 1 sh -c 'echo 1024 > /sys/class/net/vb/queues/rx-0/rps_flow_cnt'
            [ "$(busiest "$s0" "$s1")" = "$hashcpu" ] && k=off || k=on
            [ "$(engine_rfs "$eother" true '[]' udp 32768 0 | engine_busiest)" = "$ehash" ] && e=off || e=on
            verdict "$rule" "$k" "$e"
        fi
        rule="RFS follows a TCP reader on either CPU"
        if wanted "$rule"; then
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
            verdict "$rule" "$k" "$e"
        fi
        rule="a migrated reader moves its flow"
        if wanted "$rule"; then
            rm -f "$work/moved" "$work/ready"
            inb 1 taskset -c "$hashcpu" python3 "$helper" recv-udp 5000 1000 198.18.1.1 40000 --then-cpu "$other" --marker "$work/moved" & r=$!
            wait_file "$work/ready"; udp_send 1 5000 40000 1000; wait_file "$work/moved"; sleep 0.1
            s0="$(processed)"; udp_send 1 5000 40000 1000; sleep 0.3; s1="$(processed)"; wait $r
            [ "$(busiest "$s0" "$s1")" = "$other" ] && k=moves || k=stays
            e="$(engine_rfs "$ehash" true "[{\"at_ms\": 1000, \"command\": \"taskset -pc $eother 0\"}]" | jget cpus.$eother.packets)"
            [ "$e" -gt 500 ] && e=moves || e=stays
            verdict "$rule" "$k" "$e"
        fi
        rule="closing a socket clears its rps_sock_flow_table entry (6.16)"
        if wanted "$rule"; then
            rm -f "$work/closed" "$work/ready"
            inb 1 taskset -c "$other" python3 "$helper" recv-udp 5000 1000 198.18.1.1 40000 --then-close --marker "$work/closed" & r=$!
            wait_file "$work/ready"; udp_send 1 5000 40000 1000; wait_file "$work/closed"; wait $r; sleep 0.1
            s0="$(processed)"; udp_send 1 5000 40000 1000; sleep 0.3; s1="$(processed)"
            [ "$(busiest "$s0" "$s1")" = "$hashcpu" ] && k=cleared || k=kept
            e="$(engine_rfs "$eother" true '[{"at_ms": 1000, "command": "flow close 0"}]' | jget rfs.sock_flow_deletes)"
            [ "$e" -ge 1 ] && e=cleared || e=kept
            verdict "$rule" "$k" "$e"
        fi
    fi

    echo "== XPS (pair 2: two TX queues on the sender)"
    pair 2 2
    ina 2 tc qdisc replace dev va root handle 1: mq
    # Packets sent per TX queue so far (the mq children's counters), as "A B".
    txq() { ina 2 tc -s qdisc show dev va | awk '/parent 1:1 /{q=0} /parent 1:2 /{q=1} /Sent/{ if (q != "") { n[q]=$4; q="" } } END { print n[0]+0, n[1]+0 }'; }
    # The engine's TX queues of a run, as "A B".
    etxq() { python3 -c 'import json,sys; q=json.load(sys.stdin)["queues"]["tx"]; print(" ".join(str(x["packets"]) for x in q))'; }
    # The engine's sender host: two TX queues, $1 the flows (JSON), $2 the timeline, $3 the XPS map.
    xps_host() {
        engine_run "{\"schema\": 1, \"id\": \"kc-xps\", \"kernel\": \"$generation\",
          \"host\": {\"cpus\": $ncpu}, \"nic\": {\"driver\": \"generic\", \"rx_queues\": 2, \"tx_queues\": 2}, \"xps\": {\"map\": \"${3:-none}\"},
          \"sim\": {\"duration_ms\": 2000}, \"threads\": [{\"count\": 2, \"cpus\": \"0-1\", \"pin\": true}],
          \"flows\": $1, \"timeline\": $2}"
    }
    xps_map='[{"at_ms": 0, "command": "echo 1 > /sys/class/net/eth0/queues/tx-0/xps_cpus"},
              {"at_ms": 0, "command": "echo 2 > /sys/class/net/eth0/queues/tx-1/xps_cpus"}'
    rule="without an XPS map, skb_tx_hash spreads flows over the TX queues"
    if wanted "$rule"; then
        t0="$(txq)"
        for p in $(seq 41000 41015); do ina 2 taskset -c 0 python3 "$helper" send-udp 198.18.2.2 5002 "$p" 20; done
        t1="$(txq)"
        k="$(python3 -c 'import sys; a=sys.argv[1].split(); b=sys.argv[2].split(); print("spread" if all(int(y)>int(x) for x,y in zip(a,b)) else "one queue")' "$t0" "$t1")"
        kq="$(python3 -c 'import sys; a=sys.argv[1].split(); b=sys.argv[2].split(); d=[int(y)-int(x) for x,y in zip(a,b)]; print(round(d[0]/max(1,sum(d)), 4))' "$t0" "$t1")"
        eq="$(xps_host '[{"count": 16, "proto": "udp", "src": "198.18.2.2", "dst": "198.18.2.1", "sport": 5002, "dport": 41000, "random": true, "rate_pps": 0, "readers_per_flow": 1, "reader_base": 0, "tx": {"rate_pps": 20, "bytes": 64}}]' '[]' | etxq)"
        e="$(python3 -c 'import sys; print("spread" if all(int(x) > 0 for x in sys.argv[1].split()) else "one queue")' "$eq")"
        verdict "$rule" "$k" "$e"
        measure "share of 16 flows' packets on tx-0 without an XPS map (of two queues)" "$kq" "$(python3 -c 'import sys; d=list(map(int,sys.argv[1].split())); print(round(d[0]/max(1,sum(d)), 4))' "$eq")"
    fi
    rule="xps_cpus naming a CPU the host lacks is refused"
    wanted "$rule" && verdict "$rule" "$(ina 2 python3 "$helper" write /sys/class/net/va/queues/tx-0/xps_cpus "$(printf '%x' $((1 << ncpu)))")" \
        "$(ewrite /sys/class/net/eth0/queues/tx-0/xps_cpus "$(printf '%x' $((1 << ncpu)))" "$work/host2.json")"
    ina 2 sh -c 'echo 1 > /sys/class/net/va/queues/tx-0/xps_cpus; echo 2 > /sys/class/net/va/queues/tx-1/xps_cpus'
    rule="the TX queue follows xps_cpus"
    if wanted "$rule"; then
        t0="$(txq)"
        ina 2 taskset -c 0 python3 "$helper" send-udp 198.18.2.2 5002 40002 300
        ina 2 taskset -c 1 python3 "$helper" send-udp 198.18.2.2 5002 40003 900
        t1="$(txq)"
        k="$(python3 -c 'import sys; a=sys.argv[1].split(); b=sys.argv[2].split(); print("tx-0 %d, tx-1 %d" % tuple(int(y)-int(x) for x,y in zip(a,b)))' "$t0" "$t1")"
        e="$(xps_host '[{"count": 1, "proto": "udp", "src": "198.18.2.2", "dst": "198.18.2.1", "sport": 5002, "dport": 40002, "rate_pps": 0, "readers_per_flow": 1, "reader_base": 0, "tx": {"rate_pps": 150, "bytes": 64}},
                {"count": 1, "proto": "udp", "src": "198.18.2.2", "dst": "198.18.2.1", "sport": 5002, "dport": 40003, "rate_pps": 0, "readers_per_flow": 1, "reader_base": 1, "tx": {"rate_pps": 450, "bytes": 64}}]' "$xps_map]" | etxq)"
        e="$(python3 -c 'import sys; a,b=sys.argv[1].split(); print("tx-0 %s, tx-1 %s" % (a,b))' "$e")"
        verdict "$rule" "$k" "$e"
    fi
    # A socket that migrates from CPU 0 to CPU 1 halfway: $1 connected (true/false).
    migrating_sender() {
        local t0 t1 flags="" sink
        [ "$1" = true ] && flags="--connect"
        # A socket on the receiver, so that no ICMP error refuses the connected sender.
        inb 2 python3 "$helper" count-udp 5002 5 > /dev/null & sink=$!
        sleep 0.3
        t0="$(txq)"
        ina 2 taskset -c 0 python3 "$helper" send-udp 198.18.2.2 5002 40010 200 --then-cpu 1 $flags
        t1="$(txq)"
        wait $sink
        python3 -c 'import sys; a=sys.argv[1].split(); b=sys.argv[2].split(); d=[int(y)-int(x) for x,y in zip(a,b)]; print("stays on its first queue" if min(d) == 0 else "follows its CPU")' "$t0" "$t1"
    }
    engine_migrating() {
        xps_host "[{\"count\": 1, \"proto\": \"udp\", \"src\": \"198.18.2.2\", \"dst\": \"198.18.2.1\", \"sport\": 5002, \"dport\": 40010, \"rate_pps\": 0, \"readers_per_flow\": 1, \"reader_base\": 0, \"tx\": {\"rate_pps\": 100, \"bytes\": 64, \"connected\": $1}}]" \
          "$xps_map, {\"at_ms\": 1000, \"command\": \"taskset -pc 1 0\"}]" | etxq \
          | python3 -c 'import sys; d=list(map(int,sys.stdin.read().split())); print("stays on its first queue" if min(d) == 0 else "follows its CPU")'
    }
    rule="a connected UDP socket keeps its cached TX queue when it migrates (no ooo_okay)"
    wanted "$rule" && verdict "$rule" "$(migrating_sender true)" "$(engine_migrating true)"
    rule="an unconnected UDP socket picks its TX queue by its CPU at each send"
    wanted "$rule" && verdict "$rule" "$(migrating_sender false)" "$(engine_migrating false)"
fi

echo "== tc (pair 3: the receiver's ingress)"
mkdir -p "$work/bpf"
if ! zcat /proc/config.gz 2>/dev/null | grep -q '^CONFIG_NET_CLS_BPF=y'; then
    skip "tc software filters" "no cls_bpf in this kernel (and no flower to compare with)"
elif ! mount -t bpf bpf "$work/bpf" 2>/dev/null || ! python3 "$helper" bpf-drop-udp-port "$work/bpf/drop" 5003; then
    skip "tc software filters" "cannot load a BPF program here"
else
    pair 3
    inb 3 tc qdisc add dev vb ingress
    # The engine's receiver with one flow to port 5003 and one to 5004, 300 packets each.
    tc_host() { # $1 timeline
        engine_run "{\"schema\": 1, \"id\": \"kc-tc\", \"kernel\": \"$generation\", \"host\": {\"cpus\": $ncpu},
          \"nic\": {\"driver\": \"generic\", \"rx_queues\": 1, \"tx_queues\": 1}, \"sim\": {\"duration_ms\": 1000},
          \"flows\": [{\"count\": 1, \"proto\": \"udp\", \"src\": \"198.18.3.1\", \"dst\": \"198.18.3.2\", \"sport\": 40004, \"dport\": 5003, \"rate_pps\": 300},
                    {\"count\": 1, \"proto\": \"udp\", \"src\": \"198.18.3.1\", \"dst\": \"198.18.3.2\", \"sport\": 40005, \"dport\": 5004, \"rate_pps\": 300}],
          \"timeline\": $1}"
    }
    rule="a filter with skip_sw is refused on a device without tc offload"
    if wanted "$rule"; then
        inb 3 tc filter add dev vb ingress bpf skip_sw direct-action pinned "$work/bpf/drop" 2>/dev/null && k=accepted || k=refused
        e="$(printf 'tc qdisc add dev eth0 ingress\ntc filter add dev eth0 ingress protocol ip flower skip_sw ip_proto udp dst_port 5003 action drop\n' \
            | "$steerlab" shell --scenario "$work/host.json" 2>&1 | grep -Eqi 'not supported|error' && echo refused || echo accepted)"
        verdict "$rule" "$k" "$e"
    fi
    rule="a software filter drops the packets it matches and passes the others"
    if wanted "$rule"; then
        if inb 3 tc filter add dev vb ingress bpf direct-action pinned "$work/bpf/drop" 2>/dev/null; then
            d0="$(inb 3 tc -s qdisc show dev vb ingress | python3 "$helper" qdisc-dropped)"
            inb 3 python3 "$helper" count-udp 5004 5 > "$work/passed" & sink=$!
            sleep 0.3
            udp_send 3 5003 40004 300
            udp_send 3 5004 40005 300
            wait $sink
            d1="$(inb 3 tc -s qdisc show dev vb ingress | python3 "$helper" qdisc-dropped)"
            k="dropped $((d1 - d0)), passed $(cat "$work/passed")"
            e="$(tc_host '[{"at_ms": 0, "command": "tc qdisc add dev eth0 ingress"}, {"at_ms": 0, "command": "tc filter add dev eth0 ingress protocol ip flower ip_proto udp dst_port 5003 action drop"}]' \
                | python3 -c 'import json,sys; p=json.load(sys.stdin)["packets"]; print("dropped %d, passed %d" % (p["dropped"]["tc"], p["delivered"]))')"
            verdict "$rule" "$k" "$e"
        else
            skip "$rule" "cls_bpf direct-action did not load"
        fi
    fi
fi

echo "== backlog"
rule="a flood past netdev_max_backlog is dropped at the backlog"
if ! wanted "$rule"; then
    :
elif [ "$lower_backlog" = 1 ]; then
    pair 4
    inb 4 sh -c 'echo 1 > /sys/class/net/vb/queues/rx-0/rps_cpus'
    # A receiver slower than the sender, whatever else the machine runs: 300 u32 filters on
    # its ingress, none matching, each a classifier its backlog's softirq walks for every
    # packet (__netif_receive_skb_core: sch_handle_ingress), several microseconds a packet
    # against the sender's one sendto. Without them a sender that is not always faster let
    # the flood through in 2 of 3 runs.
    inb 4 tc qdisc add dev vb ingress
    for i in $(seq 1 300); do
        echo "filter add dev vb ingress prio $i protocol ip u32 match ip dport $((10000 + i)) 0xffff flowid 1:1"
    done > "$work/u32-filters"
    inb 4 tc -batch "$work/u32-filters"
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
    verdict "$rule" "$k" "$e"
else
    skip "$rule" "lowers the machine-wide netdev_max_backlog: run with --lower-backlog"
fi

echo "== socket receive buffer (pair 5: MTU 9000, a UDP socket that does not read)"
rule="a UDP socket's buffer holds datagrams while rmem + truesize fits sk_rcvbuf (or its queue is empty) and counts the rest as RcvbufErrors"
if wanted "$rule"; then
    pair 5
    ip -n "slkc-$$-5a" link set va mtu 9000
    ip -n "slkc-$$-5b" link set vb mtu 9000
    # What the rule makes of one socket, as a phrase free of the side's truesize: $1 sk_rcvbuf,
    # $2 truesize, $3 sent, $4 held, $5 RcvbufErrors, $6 InErrors. A side that follows
    # __udp_enqueue_schedule_skb holds max(1, floor(rcvbuf / truesize)) and counts the rest
    # (both counters); any other outcome is spelt out with its numbers.
    rcvbuf_rule() {
        python3 -c 'import sys; rb, ts, sent, held, rcv, ine = map(int, sys.argv[1:])
want = max(1, rb // ts) if ts > 0 else -1
if held == want and rcv == sent - held and ine == rcv:
    print("sk_rcvbuf %d holds %s, the rest RcvbufErrors" % (rb, "floor(rcvbuf / truesize)" if rb >= ts else "one (truesize above it: the empty queue takes one)"))
else:
    print("sk_rcvbuf %d holds %d of %d (truesize %d), %d RcvbufErrors, %d InErrors" % (rb, held, sent, ts, rcv, ine))' "$@"
    }
    # The kernel: a socket asking SO_RCVBUF $1 that does not read, $3 datagrams of $2 bytes
    # from pair 5's side a; prints `SK_RCVBUF TRUESIZE SENT HELD RCVBUFERRORS INERRORS`
    # (the counters of the receiving namespace's /proc/net/snmp, which are per namespace).
    kernel_rcvbuf() {
        local c0 c1 sink
        rm -f "$work/ready" "$work/go"
        c0="$(inb 5 python3 "$helper" udp-snmp)"
        inb 5 python3 "$helper" rcvbuf-sink 5005 "$1" "$work/ready" "$work/go" > "$work/sink" & sink=$!
        wait_file "$work/ready"
        udp_send 5 5005 40005 "$3" --bytes "$2"
        sleep 0.2; : > "$work/go"; wait $sink
        c1="$(inb 5 python3 "$helper" udp-snmp)"
        python3 -c 'import sys; rb, rmem, held = map(int, sys.argv[1].split()); i0, r0 = map(int, sys.argv[2].split()); i1, r1 = map(int, sys.argv[3].split())
print(rb, rmem // held if held else 0, sys.argv[4], held, r1 - r0, i1 - i0)' "$(cat "$work/sink")" "$c0" "$c1" "$3"
    }
    # The engine: the same socket, its reader so slow (10 ms a datagram) that it reads
    # nothing in the 1 ms the burst lasts; prints `SK_RCVBUF SENT HELD RCVBUFERRORS`, held
    # being offered - dropped at the socket - read. nstat's UdpRcvbufErrors and UdpInErrors
    # are both packets.dropped.socket.
    rcvbuf_host() { # $1 SO_RCVBUF, $2 bytes, $3 datagrams
        echo "{\"schema\": 1, \"id\": \"kc-rcvbuf\", \"kernel\": \"$generation\", \"host\": {\"cpus\": $ncpu, \"numa_nodes\": 1},
          \"nic\": {\"driver\": \"generic\", \"rx_queues\": 1, \"tx_queues\": 1}, \"sim\": {\"duration_ms\": 1},
          \"threads\": [{\"count\": 1, \"cpus\": \"$((ncpu - 1))\", \"pin\": true}],
          \"flows\": [{\"count\": 1, \"proto\": \"udp\", \"src\": \"198.18.5.1\", \"dst\": \"198.18.5.2\", \"sport\": 40005, \"dport\": 5005,
                     \"rate_pps\": $(($3 * 1000)), \"bytes\": $2, \"readers_per_flow\": 1}],
          \"timeline\": [{\"at_ms\": 0, \"command\": \"flow work 0 10000000\"}, {\"at_ms\": 0, \"command\": \"flow setsockopt 0 SO_RCVBUF $1\"}]}"
    }
    engine_rcvbuf() {
        local rb
        rcvbuf_host "$@" > "$work/rcvbuf.json"
        rb="$(echo 'flow setsockopt 0 SO_RCVBUF '"$1" | "$steerlab" shell --scenario "$work/rcvbuf.json" 2>&1 | sed -n 's/.*sk_rcvbuf \([0-9]*\).*/\1/p' | tail -n 1)"
        "$steerlab" run "$work/rcvbuf.json" --json | python3 -c 'import json,sys; r=json.load(sys.stdin); p=r["packets"]
reads = r["ledger"]["app_work_ns"] // 10000000
d = p["dropped"]["socket"]
print(sys.argv[1] or 0, p["offered"], p["offered"] - d - reads, d)' "$rb"
    }
    # The engine's truesize of a $1-byte datagram, from its behaviour: the least SO_RCVBUF
    # (sk_rcvbuf twice it) whose socket holds two datagrams (exact for a truesize of 1152 or
    # more, where SOCK_MIN_RCVBUF does not bound it).
    engine_truesize() {
        python3 -c 'import json, subprocess, sys
steerlab, work = sys.argv[1], sys.argv[2]
host = sys.stdin.read()
def held(val):
    with open(work + "/truesize.json", "w") as f:
        f.write(host.replace("SO_RCVBUF 1\"", "SO_RCVBUF %d\"" % val))
    r = json.loads(subprocess.run([steerlab, "run", work + "/truesize.json", "--json"], capture_output=True, text=True, check=True).stdout)
    return r["packets"]["offered"] - r["packets"]["dropped"]["socket"] - r["ledger"]["app_work_ns"] // 10000000
lo, hi = 1152, 106496
if held(hi) < 2:
    print(0); sys.exit()
while lo < hi:
    mid = (lo + hi) // 2
    lo, hi = (lo, mid) if held(mid) >= 2 else (mid + 1, hi)
print(lo)' "$steerlab" "$work" <<< "$(rcvbuf_host 1 "$1" 10)"
    }
    read -r kb1 kt1 ks1 kh1 kr1 ki1 <<< "$(kernel_rcvbuf 16384 1400 200)"
    read -r kb2 kt2 ks2 kh2 kr2 ki2 <<< "$(kernel_rcvbuf 1 3000 200)"
    read -r eb1 es1 eh1 er1 <<< "$(engine_rcvbuf 16384 1400 200)"
    read -r eb2 es2 eh2 er2 <<< "$(engine_rcvbuf 1 3000 200)"
    et1="$(engine_truesize 1400)"
    et2="$(engine_truesize 3000)"
    verdict "$rule" \
        "$(rcvbuf_rule "$kb1" "$kt1" "$ks1" "$kh1" "$kr1" "$ki1"); $(rcvbuf_rule "$kb2" "$kt2" "$ks2" "$kh2" "$kr2" "$ki2")" \
        "$(rcvbuf_rule "$eb1" "$et1" "$es1" "$eh1" "$er1" "$er1"); $(rcvbuf_rule "$eb2" "$et2" "$es2" "$eh2" "$er2" "$er2")"
    measure "truesize of a 1400-byte UDP datagram received on veth (bytes)" "$kt1" "$et1"
    measure "truesize of a 3000-byte UDP datagram received on veth at MTU 9000 (bytes)" "$kt2" "$et2"
    measure "1400-byte datagrams an SO_RCVBUF 16384 UDP socket holds (of 200)" "$kh1" "$eh1"
fi

echo "== softirq budget and interrupts"
rule="a net_rx_action run that spends netdev_budget counts time_squeeze: budget 1 squeezes runs of one packet, 300 does not"
if ! wanted "$rule"; then
    :
elif [ "$lower_budget" = 1 ]; then
    pair 6
    # The kernel: 2000 datagrams from a sender on CPU 0 into pair 6's side b (no RPS: veth
    # hands each packet to CPU 0's backlog and the sender's own softirq takes it, one packet a
    # run) under netdev_budget $1; sets ksq to softnet_stat's time_squeeze over the CPUs. Run
    # in the script's own shell (not a subshell), so that its trap restores the budget.
    kernel_squeeze() {
        local q0 q1 sink
        inb 6 python3 "$helper" count-udp 5006 5 > /dev/null & sink=$!
        sleep 0.3
        echo "$1" > /proc/sys/net/core/netdev_budget
        q0="$(softnet 3)"
        udp_send 6 5006 40006 2000
        q1="$(softnet 3)"
        echo "$saved_budget" > /proc/sys/net/core/netdev_budget
        wait $sink
        ksq="$(python3 -c 'import sys; print(sum(int(y) - int(x) for x, y in zip(sys.argv[1].split(), sys.argv[2].split())))' "$q0" "$q1")"
    }
    # The engine: the same 2000 datagrams on its generic NIC (rx-usecs 0: an interrupt, and so
    # a run, a packet at this rate) under netdev_budget $1; prints `SQUEEZES PACKETS RUNS`.
    engine_squeeze() {
        engine_run "{\"schema\": 1, \"id\": \"kc-squeeze\", \"kernel\": \"$generation\", \"host\": {\"cpus\": $ncpu, \"numa_nodes\": 1},
          \"nic\": {\"driver\": \"generic\", \"rx_queues\": 1, \"tx_queues\": 1}, \"net\": {\"netdev_budget\": $1}, \"sim\": {\"duration_ms\": 100},
          \"flows\": [{\"count\": 1, \"proto\": \"udp\", \"src\": \"198.18.6.1\", \"dst\": \"198.18.6.2\", \"sport\": 40006, \"dport\": 5006, \"rate_pps\": 20000, \"bytes\": 64}]}" \
          | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["napi"]["time_squeeze"], r["packets"]["offered"], r["irq"]["interrupts"])'
    }
    squeezed() { # squeezes, packets: "squeezes" from one a ten packets up, else "few or none"
        python3 -c 'import sys; d, n = int(sys.argv[1]), int(sys.argv[2]); print("squeezes" if d * 10 >= n else "few or none")' "$1" "$2"
    }
    kernel_squeeze 1; kq1="$ksq"
    kernel_squeeze 300; kq300="$ksq"
    kn1=2000 kn300=2000
    read -r eq1 en1 er1 <<< "$(engine_squeeze 1)"
    read -r eq300 en300 er300 <<< "$(engine_squeeze 300)"
    echo "   time_squeeze for 2000 datagrams: kernel $kq1 at budget 1, $kq300 at 300; engine $eq1 and $eq300 ($er1 runs for $en1 packets)"
    verdict "$rule" "budget 1: $(squeezed "$kq1" "$kn1"), budget 300: $(squeezed "$kq300" "$kn300")" \
        "budget 1: $(squeezed "$eq1" "$en1"), budget 300: $(squeezed "$eq300" "$en300")"
    measure "time_squeeze per packet at netdev_budget 1, one packet a run (veth)" \
        "$(python3 -c 'import sys; print(round(int(sys.argv[1]) / int(sys.argv[2]), 4))' "$kq1" "$kn1")" \
        "$(python3 -c 'import sys; print(round(int(sys.argv[1]) / int(sys.argv[2]), 4))' "$eq1" "$en1")"
else
    skip "$rule" "lowers the machine-wide netdev_budget: run with --lower-budget"
fi
rule="a queue's interrupts under moderation are fewer than its packets, and a saturated poll raises none"
skip "$rule" "veth has no hardware interrupt: veth_xmit hands each packet to the sender CPU's backlog (or, with GRO or XDP on, schedules the peer's NAPI) and the sender's softirq takes it; there is no IRQ line, no /proc/interrupts row and no rx-usecs to compare"
skip "aRFS (ndo_rx_flow_steer)" "veth has no ndo_rx_flow_steer"
finish
[ "$checked" = "$agreed" ]
