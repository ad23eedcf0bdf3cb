"""kernel-check's traffic and BPF helper (run by scripts/kernel-check.sh inside the network
namespaces it made; never on its own). Every loop is bounded in count and time, and the only
addresses it sends to are the ones the script gave its own namespaces.

  send-udp DST PORT SPORT COUNT          unconnected sender, fixed source port (the hash stays)
  recv-udp PORT COUNT [PEER PEERPORT] [--then-cpu N | --then-close] [--marker FILE]
                                         a reader: connected to PEER:PEERPORT when given; after
                                         COUNT datagrams it moves to CPU N, or closes, and
                                         writes FILE; then reads until quiet
  tcp-server PORT BYTES                  accepts one connection, reads BYTES
  tcp-client DST PORT BYTES              connects, writes BYTES in 1 KB writes
  bpf-drop-ipv4 PINPATH                  loads a SCHED_CLS program (IPv4: TC_ACT_SHOT, else
                                         TC_ACT_UNSPEC) and pins it at PINPATH
"""

import ctypes
import os
import socket
import struct
import sys
import time

DEADLINE = time.monotonic() + 20.0  # no helper runs longer than this


def send_udp(dst, port, sport, count):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", int(sport)))
    payload = b"x" * 64
    for i in range(min(int(count), 100_000)):
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


def bpf_drop_ipv4(pin):
    def insn(code, dst, src, off, imm):
        return struct.pack("<BBhi", code, (src << 4) | dst, off, imm)

    prog = b"".join(
        [
            insn(0x61, 0, 1, 16, 0),  # r0 = skb->protocol (struct __sk_buff, offset 16)
            insn(0x55, 0, 0, 2, 0x0008),  # if r0 != htons(ETH_P_IP) goto +2
            insn(0xB7, 0, 0, 0, 2),  # r0 = TC_ACT_SHOT
            insn(0x95, 0, 0, 0, 0),  # exit
            insn(0xB7, 0, 0, 0, -1),  # r0 = TC_ACT_UNSPEC
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
    elif cmd == "bpf-drop-ipv4":
        bpf_drop_ipv4(args[0])
    else:
        raise SystemExit(f"unknown helper command {cmd}")


main()
