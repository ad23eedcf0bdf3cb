"""kernel-check's traffic and BPF helper (run by scripts/kernel-check.sh inside the network
namespaces it made; never on its own). Every loop is bounded in count and time, and the only
addresses it sends to are the ones the script gave its own namespaces.

  send-udp DST PORT SPORT COUNT [--then-cpu N] [--connect] [--bytes N]
                                         a sender, fixed source port (the hash stays);
                                         connected with --connect; halfway through it moves
                                         to CPU N; datagrams of N bytes (default 64)
  recv-udp PORT COUNT [PEER PEERPORT] [--then-cpu N | --then-close] [--marker FILE]
                                         a reader: connected to PEER:PEERPORT when given; after
                                         COUNT datagrams it moves to CPU N, or closes, and
                                         writes FILE; then reads until quiet
  tcp-server PORT BYTES                  accepts one connection, reads BYTES
  tcp-client DST PORT BYTES              connects, writes BYTES in 1 KB writes
  bpf-drop-udp-port PINPATH PORT         loads a SCHED_CLS program (IPv4 UDP to PORT:
                                         TC_ACT_SHOT, else TC_ACT_UNSPEC) and pins it at PINPATH
  write FILE VALUE                       writes VALUE to a sysfs/proc file: `ok READ-BACK`, or
                                         the errno's name (EINVAL, EOVERFLOW, ...)
  answer SHELL-OUTPUT                    the same for `steerlab shell`'s output of a write and
                                         a read (its error words mapped back to the errno)
  count-udp PORT SECONDS                 a sink: counts the datagrams to PORT until SECONDS pass
                                         (or a second of quiet after the first), prints the count
  rcvbuf-sink PORT SO_RCVBUF READY GO    a socket that asks SO_RCVBUF and does not read: writes
                                         READY, waits (bounded) for the file GO, then prints
                                         `SK_RCVBUF RMEM HELD`: getsockopt's sk_rcvbuf, the
                                         bytes queued (/proc/net/udp rx_queue, sk_rmem_alloc)
                                         and the datagrams it then reads dry
  udp-snmp                               `InErrors RcvbufErrors` of this namespace's
                                         /proc/net/snmp Udp line
  qdisc-dropped                          the `dropped` count of `tc -s qdisc show` on stdin
  testbed VERSION GENERATION             a JSON line describing this machine (for the report)
"""

import ctypes
import errno
import os
import socket
import struct
import sys
import time

DEADLINE = time.monotonic() + 20.0  # no helper runs longer than this


def send_udp(dst, port, sport, count, *opts):
    then_cpu, connect, size = None, False, 64
    opts = list(opts)
    while opts:
        if opts[0] == "--then-cpu":
            then_cpu, opts = int(opts[1]), opts[2:]
        elif opts[0] == "--connect":
            connect, opts = True, opts[1:]
        elif opts[0] == "--bytes":
            size, opts = min(int(opts[1]), 8000), opts[2:]
        else:
            raise SystemExit(f"send-udp: unknown {opts[0]}")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", int(sport)))
    if connect:
        s.connect((dst, int(port)))
    payload = b"x" * size
    count = min(int(count), 100_000)
    for i in range(count):
        if then_cpu is not None and i == count // 2:
            os.sched_setaffinity(0, {then_cpu})
            time.sleep(0.01)
        if connect:
            s.send(payload)
        else:
            s.sendto(payload, (dst, int(port)))
        if i % 200 == 199:
            time.sleep(0.002)  # paced: a backlog never overflows
        if time.monotonic() > DEADLINE:
            break
    s.close()


def recv_udp(args):
    port, count = int(args[0]), int(args[1])
    rest = args[2:]
    peer = None
    if rest and not rest[0].startswith("--"):
        peer = (rest[0], int(rest[1]))
        rest = rest[2:]
    then_cpu, then_close, marker = None, False, None
    while rest:
        if rest[0] == "--then-cpu":
            then_cpu, rest = int(rest[1]), rest[2:]
        elif rest[0] == "--then-close":
            then_close, rest = True, rest[1:]
        elif rest[0] == "--marker":
            marker, rest = rest[1], rest[2:]
        else:
            raise SystemExit(f"recv-udp: unknown {rest[0]}")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    if peer:
        s.connect(peer)
    s.settimeout(1.0)
    got = 0
    ready = os.path.join(os.path.dirname(marker), "ready") if marker else None
    if ready:
        open(ready, "w").close()
    while time.monotonic() < DEADLINE:
        try:
            s.recv(2048)
        except socket.timeout:
            if got >= count:
                break
            continue
        got += 1
        if got == count:
            if then_cpu is not None:
                os.sched_setaffinity(0, {then_cpu})
            if then_close:
                s.close()
            if marker:
                open(marker, "w").close()
            if then_close:
                return
    s.close()


def tcp_server(port, nbytes):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", int(port)))
    ls.listen(1)
    ls.settimeout(10.0)
    c, _ = ls.accept()
    c.settimeout(2.0)
    left = int(nbytes)
    while left > 0 and time.monotonic() < DEADLINE:
        try:
            b = c.recv(4096)
        except socket.timeout:
            break
        if not b:
            break
        left -= len(b)
    c.close()
    ls.close()


def tcp_client(dst, port, nbytes):
    for _ in range(50):
        try:
            c = socket.create_connection((dst, int(port)), timeout=2.0)
            break
        except OSError:
            time.sleep(0.05)
    else:
        raise SystemExit("tcp-client: no server")
    chunk = b"y" * 1024
    for i in range(min(int(nbytes) // 1024, 50_000)):
        c.sendall(chunk)
        if i % 200 == 199:
            time.sleep(0.002)
        if time.monotonic() > DEADLINE:
            break
    c.close()


def bpf_drop_udp_port(pin, port):
    def insn(code, dst, src, off, imm):
        return struct.pack("<BBhi", code, (src << 4) | dst, off, imm)

    # At tc ingress cls_bpf sees the frame from its MAC header (cls_bpf_classify pushes it):
    # EtherType at 12, the IPv4 protocol at 14 + 9, the UDP destination port at 14 + 20 + 2
    # (a header without options). LD_ABS reads through r6 = ctx, in host order.
    prog = b"".join(
        [
            insn(0xBF, 6, 1, 0, 0),  # r6 = r1
            insn(0x28, 0, 0, 0, 12),  # r0 = ntohs(EtherType)
            insn(0x55, 0, 0, 6, 0x0800),  # if r0 != ETH_P_IP goto pass
            insn(0x30, 0, 0, 0, 23),  # r0 = IP protocol
            insn(0x55, 0, 0, 4, 17),  # if r0 != IPPROTO_UDP goto pass
            insn(0x28, 0, 0, 0, 36),  # r0 = ntohs(UDP destination port)
            insn(0x55, 0, 0, 2, int(port)),  # if r0 != PORT goto pass
            insn(0xB7, 0, 0, 0, 2),  # r0 = TC_ACT_SHOT
            insn(0x95, 0, 0, 0, 0),  # exit
            insn(0xB7, 0, 0, 0, -1),  # pass: r0 = TC_ACT_UNSPEC
            insn(0x95, 0, 0, 0, 0),  # exit
        ]
    )
    libc = ctypes.CDLL(None, use_errno=True)
    insns = ctypes.create_string_buffer(prog)
    lic = ctypes.create_string_buffer(b"GPL")
    log = ctypes.create_string_buffer(4096)
    # union bpf_attr for BPF_PROG_LOAD: prog_type, insn_cnt, insns, license, log_level,
    # log_size, log_buf, kern_version, the rest zero.
    attr = ctypes.create_string_buffer(128)
    struct.pack_into(
        "<IIQQIIQI",
        attr,
        0,
        3,  # BPF_PROG_TYPE_SCHED_CLS
        len(prog) // 8,
        ctypes.addressof(insns),
        ctypes.addressof(lic),
        1,
        len(log),
        ctypes.addressof(log),
        0,
    )
    fd = libc.syscall(321, 5, attr, 128)  # bpf(BPF_PROG_LOAD)
    if fd < 0:
        raise SystemExit(f"bpf prog load: errno {ctypes.get_errno()} {log.value.decode(errors='replace')}")
    path = ctypes.create_string_buffer(pin.encode())
    pattr = ctypes.create_string_buffer(128)
    struct.pack_into("<QI", pattr, 0, ctypes.addressof(path), fd)
    if libc.syscall(321, 6, pattr, 128) < 0:  # bpf(BPF_OBJ_PIN)
        raise SystemExit(f"bpf obj pin: errno {ctypes.get_errno()}")


def write(path, value):
    try:
        with open(path, "w") as f:
            f.write(value)
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)))
        return
    with open(path) as f:
        print("ok " + f.read().strip())


def answer(out):
    # The shells word an errno as strerror does ("write error: Invalid argument", sysctl's
    # "setting key ...: Invalid argument"): map the words back to the errno's name.
    names = {os.strerror(n): name for n, name in errno.errorcode.items()}
    lines = [l for l in out.splitlines() if l and not l.startswith("$ ") and not l.startswith("hint:")]
    for l in lines:
        for words, name in names.items():
            if l.endswith(": " + words):
                print(name)
                return
    print("ok " + (lines[-1].strip() if lines else ""))


def count_udp(port, seconds):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", int(port)))
    s.settimeout(1.0)
    end = min(time.monotonic() + float(seconds), DEADLINE)
    got = 0
    ready = os.environ.get("READY_FILE")
    if ready:
        open(ready, "w").close()
    while time.monotonic() < end:
        try:
            s.recv(2048)
        except socket.timeout:
            if got:
                break
            continue
        got += 1
    print(got)


def rcvbuf_sink(port, asked, ready, go):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, int(asked))
    s.bind(("0.0.0.0", int(port)))
    rcvbuf = s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    open(ready, "w").close()
    while not os.path.exists(go) and time.monotonic() < DEADLINE:
        time.sleep(0.01)
    # /proc/net/udp: local address as HEXADDR:HEXPORT, then tx_queue:rx_queue (the receive
    # queue's sk_rmem_alloc, before any read).
    rmem = -1
    for line in open("/proc/net/udp"):
        f = line.split()
        if len(f) > 4 and f[1].endswith(":%04X" % int(port)):
            rmem = int(f[4].split(":")[1], 16)
    s.setblocking(False)
    held = 0
    while held < 100_000:
        try:
            s.recv(65536)
        except BlockingIOError:
            break
        held += 1
    s.close()
    print(rcvbuf, rmem, held)


def udp_snmp():
    rows = [l.split() for l in open("/proc/net/snmp") if l.startswith("Udp:")]
    c = dict(zip(rows[0][1:], map(int, rows[1][1:])))
    print(c["InErrors"], c["RcvbufErrors"])


def qdisc_dropped():
    text = sys.stdin.read()
    i = text.find("(dropped ")
    print(int(text[i + len("(dropped ") :].split(",")[0]) if i >= 0 else 0)


def testbed(version, generation):
    import glob
    import gzip
    import json

    try:
        config = gzip.open("/proc/config.gz", "rt").read()
    except OSError:
        config = ""
    features = {}
    for opt in ["RPS", "RFS_ACCEL", "XPS", "NET_FLOW_LIMIT", "NUMA", "NET_CLS_BPF", "NET_CLS_FLOWER", "NET_CLS_U32", "NET_ACT_GACT", "NET_SCH_INGRESS"]:
        features[opt] = ("CONFIG_%s=y" % opt) in config or ("CONFIG_%s=m" % opt) in config
    print(
        json.dumps(
            {
                "testbed": {
                    "kernel": version,
                    "engine_rules": generation,
                    "cpus": os.cpu_count(),
                    "numa_nodes": len(glob.glob("/sys/devices/system/node/node[0-9]*")),
                    "config": features,
                    "config_known": bool(config),
                }
            }
        )
    )


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "send-udp":
        send_udp(*args)
    elif cmd == "recv-udp":
        recv_udp(args)
    elif cmd == "tcp-server":
        tcp_server(*args)
    elif cmd == "tcp-client":
        tcp_client(*args)
    elif cmd == "bpf-drop-udp-port":
        bpf_drop_udp_port(args[0], args[1])
    elif cmd == "write":
        write(args[0], args[1])
    elif cmd == "answer":
        answer(args[0])
    elif cmd == "count-udp":
        count_udp(args[0], args[1])
    elif cmd == "rcvbuf-sink":
        rcvbuf_sink(*args)
    elif cmd == "udp-snmp":
        udp_snmp()
    elif cmd == "qdisc-dropped":
        qdisc_dropped()
    elif cmd == "testbed":
        testbed(args[0], args[1])
    else:
        raise SystemExit(f"unknown helper command {cmd}")


main()
