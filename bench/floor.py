"""The floor under a beam call on this machine: bare request/reply between Python processes
over unix socketpairs, no beam at all (docs/PERFORMANCE.md, "Misses").

    python3 bench/floor.py [--n 5000] [--fanout K [--relay]] [--size BYTES]
    python3 bench/floor.py --wakeups

Without --fanout: one round trip to one process. A beam sync call is two such round trips
(driver -> daemon -> worker -> daemon -> driver), so twice this p50 is what wake-ups alone
cost it, before any pickling, parsing or routing.

With --fanout K: each round sends SIZE bytes (default 4096) to each of K processes and waits
for all K replies, straight from the sender to every receiver. This is the fastest any design
that runs K actors as K processes could broadcast on this machine (no daemon, no headers, no
pickling), so it bounds the broadcast figure from below. With --relay the messages go
through a middle process instead, beam's star in miniature: it reads the sender's stream
and writes each message to its receiver; a thread per receiver writes its replies back.
With --relay --hosts 2, half the receivers sit behind a second relay process that the first
one forwards to (the broadcast to 8 actors on two hosts: head daemon, joined daemon).

With --wakeups: how often a process that answers messages sleeps per message when it waits
for the next one in a blocking recv() and when it waits in poll() (voluntary context switches
from /proc). On a unix socket the recv() sleeper is woken a second time by the peer reading
its reply (docs/PERFORMANCE.md, "Sleeping in poll, not in recv").
"""
import argparse
import os
import select
import socket
import threading
import time


def echo_child(sock, size):
    """Reply 8 bytes per message of ``size`` bytes (the length of a reply to a broadcast)."""
    while True:
        got = 0
        while got < size:
            data = sock.recv(65536)
            if not data:
                os._exit(0)
            got += len(data)
        sock.sendall(b"r" * 8)


def spawn(size):
    a, b = socket.socketpair()
    if os.fork() == 0:
        a.close()
        echo_child(b, size)
    b.close()
    return a


def spawn_relay(k, size, hosts=1):
    """A relay process with k receivers behind it; returns the sender's end. Each message
    on it is a 4-byte receiver index and ``size`` bytes; replies come back as they are.
    With ``hosts`` 2, the second half of the receivers sit behind a second relay, as an
    actor on a joined node sits behind its daemon."""
    a, b = socket.socketpair()
    if os.fork() == 0:
        a.close()
        near = k // 2 if hosts == 2 else k
        kids = [spawn(size) for _ in range(near)]
        far = spawn_relay(k - near, size) if hosts == 2 else None
        lock = threading.Lock()
        if far is not None:
            threading.Thread(target=lambda: forward_replies(far, b, lock), daemon=True).start()

        def replies(kid):
            while data := kid.recv(64):
                with lock:
                    b.sendall(data)
            os._exit(0)
        for kid in kids:
            threading.Thread(target=replies, args=(kid,), daemon=True).start()
        buf = b""
        while data := b.recv(1 << 20):
            buf += data
            while len(buf) >= 4 + size:
                i = int.from_bytes(buf[:4], "big")
                if i < near:
                    kids[i].sendall(buf[4:4 + size])
                else:  # to the second relay, with the index it knows
                    far.sendall((i - near).to_bytes(4, "big") + buf[4:4 + size])
                buf = buf[4 + size:]
        os._exit(0)
    b.close()
    return a


def forward_replies(src, dst, lock):
    while data := src.recv(64):
        with lock:
            dst.sendall(data)
    os._exit(0)


def relayed_rounds(sock, k, size, n):
    msgs = [i.to_bytes(4, "big") + b"x" * size for i in range(k)]
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        for m in msgs:
            sock.sendall(m)
        got = 0
        while got < 8 * k:
            got += len(sock.recv(4096))
        samples.append(time.perf_counter() - t0)
    return samples


def rounds(socks, msg, n):
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        for s in socks:
            s.sendall(msg)
        for s in socks:
            s.recv(64)
        samples.append(time.perf_counter() - t0)
    return samples


def wakeups(n):
    """Voluntary context switches per message of an answering process, per way of waiting."""
    for how in ("recv", "poll"):
        a, b = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            a.close()
            poller = select.poll()
            poller.register(b.fileno(), select.POLLIN)
            while True:
                if how == "poll":
                    poller.poll()
                    data = b.recv(64, socket.MSG_DONTWAIT)
                else:
                    data = b.recv(64)
                if not data:
                    os._exit(0)
                b.sendall(b"r")
        b.close()

        def switches():
            with open(f"/proc/{pid}/status") as f:
                return next(int(line.split()[1]) for line in f if line.startswith("voluntary_ctxt_switches"))
        for _ in range(200):  # warm-up
            a.sendall(b"x")
            a.recv(1)
        before = switches()
        for _ in range(n):
            a.sendall(b"x")
            a.recv(1)
            time.sleep(0.0001)  # the answerer is asleep again before the next message
        print(f"waiting in {how}(): {(switches() - before) / n:.2f} sleeps per message")
        a.close()
        os.waitpid(pid, 0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--fanout", type=int, default=0, help="K receivers per round (0: one round trip)")
    ap.add_argument("--relay", action="store_true", help="through a relay process (with --fanout)")
    ap.add_argument("--hosts", type=int, choices=(1, 2), default=1,
                    help="with --relay 2: half the receivers behind a second relay (a joined node's daemon)")
    ap.add_argument("--size", type=int, default=0, help="bytes per message (default 120, or 4096 with --fanout)")
    ap.add_argument("--wakeups", action="store_true", help="sleeps per message: waiting in recv() or in poll()")
    args = ap.parse_args()
    if args.wakeups:
        return wakeups(min(args.n, 2000))
    size = args.size or (4096 if args.fanout else 120)  # 120: about a call frame's header
    if args.relay:
        if not args.fanout:
            ap.error("--relay needs --fanout K")
        sock = spawn_relay(args.fanout, size, args.hosts)
        relayed_rounds(sock, args.fanout, size, 500)  # warm-up
        samples = sorted(relayed_rounds(sock, args.fanout, size, args.n))
        sock.close()
    else:
        socks = [spawn(size) for _ in range(max(1, args.fanout))]
        msg = b"x" * size
        rounds(socks, msg, 500)  # warm-up
        samples = sorted(rounds(socks, msg, args.n))
        for s in socks:
            s.close()
    p50, p99 = samples[len(samples) // 2], samples[int(len(samples) * 0.99)]
    if args.relay:
        via = "a relay process" if args.hosts == 1 else "a relay process (half of them behind a second one)"
        print(f"{size} bytes to {args.fanout} processes and back through {via}: p50 {p50 * 1e6:.0f} us, "
              f"p99 {p99 * 1e6:.0f} us")
    elif args.fanout:
        print(f"{size} bytes to {args.fanout} processes and back, straight: p50 {p50 * 1e6:.0f} us, "
              f"p99 {p99 * 1e6:.0f} us (no design with {args.fanout} actor processes does better here)")
    else:
        print(f"process-to-process round trip: p50 {p50 * 1e6:.0f} us, p99 {p99 * 1e6:.0f} us "
              f"(a beam sync call makes two: >= {2 * p50 * 1e6:.0f} us before any work)")


if __name__ == "__main__":
    main()
