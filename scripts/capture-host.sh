#!/bin/sh
# How this host steers received packets, for steerlab (import, predict, the page's "Your
# host"): sh capture-host.sh eth0 > host.txt. Read only; a few drivers want sudo for ethtool -x.
set -u

if [ $# -ne 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  echo "usage: sh $0 INTERFACE > capture.txt" >&2
  exit 2
fi
IF=$1
if [ ! -d "/sys/class/net/$IF" ]; then
  echo "capture-host: no interface $IF" >&2
  exit 2
fi

if ! command -v ethtool >/dev/null 2>&1; then
  echo "capture-host: no ethtool (apt install ethtool): no queues, table, key or rules" >&2
fi

run() {
  echo "\$ $*"
  "$@" 2>&1
  echo
}

echo "# steerlab host capture of $IF, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
run ethtool -i "$IF"
run uname -r
run readlink -f "/sys/class/net/$IF/device"
run nproc --all
run lscpu
run ethtool -l "$IF"
run ls "/sys/class/net/$IF/queues/"
run ethtool -x "$IF"
run ethtool -n "$IF"
for t in tcp4 udp4 tcp6 udp6; do
  run ethtool -n "$IF" rx-flow-hash "$t"
done
run ethtool -k "$IF"
run cat /proc/interrupts
# The glob printed as typed, expanded (unquoted) when run.
grep_files() {
  echo "\$ grep -H . $1"
  grep -H . $1 2>&1
  echo
}
grep_files "/proc/irq/*/smp_affinity_list"
grep_files "/proc/irq/*/effective_affinity_list"
for f in rx-*/rps_cpus rx-*/rps_flow_cnt tx-*/xps_cpus; do
  grep_files "/sys/class/net/$IF/queues/$f"
done
run sysctl net.core.rps_sock_flow_entries net.core.netdev_max_backlog net.core.netdev_budget net.core.netdev_budget_usecs net.core.dev_weight net.core.rmem_default net.core.rmem_max
# Where packets drop and who takes the interrupts: the ring and its moderation, the
# driver's counters, each CPU's backlog and budget, the sockets' drops, the softirq load.
run ethtool -g "$IF"
run ethtool -c "$IF"
run ethtool -S "$IF"
run cat /proc/net/softnet_stat
# -s: nstat keeps no history file (read only); -a: the totals since boot; -z: zeros too.
if command -v nstat >/dev/null 2>&1; then
  run nstat -asz
else
  run cat /proc/net/snmp
fi
if command -v mpstat >/dev/null 2>&1; then
  run mpstat -P ALL 1 1
fi
