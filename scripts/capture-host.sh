#!/bin/sh
# Prints a transcript of how a Linux host steers received packets, for `steerlab import`,
# `steerlab predict` and the page's "Your host": each command as `$ command`, then its output.
#
#   sh scripts/capture-host.sh eth0 > host.txt
#   steerlab predict host.txt --flow "tcp 203.0.113.7:40000 10.0.0.2:443"
#
# Read only: it runs ethtool's show options, uname, ip, ls, cat, grep and sysctl, and changes
# nothing.
# No root is needed for any of it on most kernels (a few drivers want CAP_NET_ADMIN for
# `ethtool -x`; then run it with sudo). A command that fails leaves its error in the transcript,
# and the importer says what it had to assume instead.
set -u

if [ $# -ne 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  echo "usage: sh $0 INTERFACE > capture.txt" >&2
  exit 2
fi
IF=$1
if [ ! -d "/sys/class/net/$IF" ]; then
  echo "capture-host: no interface $IF (see ip link)" >&2
  exit 2
fi

if ! command -v ethtool >/dev/null 2>&1; then
  echo "capture-host: ethtool is not installed (apt install ethtool): the capture will lack the NIC's queues, table, key and rules" >&2
fi

# Runs a command and prints it as `$ command`, its output (and errors) after it.
run() {
  echo "\$ $*"
  "$@" 2>&1
  echo
}

echo "# steerlab host capture of $IF, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
run ethtool -i "$IF"
# A driver built out of tree reports its own version in ethtool -i, not the kernel's release.
run uname -r
run readlink -f "/sys/class/net/$IF/device"
run nproc --all
run lscpu
run ethtool -l "$IF"
# The queues in use, for drivers (or hosts without ethtool) that do not answer ethtool -l.
run ls "/sys/class/net/$IF/queues/"
run ethtool -x "$IF"
run ethtool -n "$IF"
for t in tcp4 udp4 tcp6 udp6; do
  run ethtool -n "$IF" rx-flow-hash "$t"
done
run ethtool -k "$IF"
run cat /proc/interrupts
# The globs are printed as typed and expanded by the shell when run.
echo "\$ grep -H . /proc/irq/*/smp_affinity_list"
grep -H . /proc/irq/*/smp_affinity_list 2>&1; echo
echo "\$ grep -H . /proc/irq/*/effective_affinity_list"
grep -H . /proc/irq/*/effective_affinity_list 2>&1; echo
echo "\$ grep -H . /sys/class/net/$IF/queues/rx-*/rps_cpus"
grep -H . /sys/class/net/"$IF"/queues/rx-*/rps_cpus 2>&1; echo
echo "\$ grep -H . /sys/class/net/$IF/queues/rx-*/rps_flow_cnt"
grep -H . /sys/class/net/"$IF"/queues/rx-*/rps_flow_cnt 2>&1; echo
echo "\$ grep -H . /sys/class/net/$IF/queues/tx-*/xps_cpus"
grep -H . /sys/class/net/"$IF"/queues/tx-*/xps_cpus 2>&1; echo
run sysctl net.core.rps_sock_flow_entries net.core.netdev_max_backlog
