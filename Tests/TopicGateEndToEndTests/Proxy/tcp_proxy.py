"""What the tests' TCP proxies share: accept on 127.0.0.1:LISTEN, connect each client to
127.0.0.1:TARGET, and copy both ways, each chunk through a filter of that connection and
direction that returns the bytes to pass on (b"" for none). `cut()` closes every connection
open; while `admit()` says no, a new client is closed as soon as it is accepted.
`packet_filter` makes a filter that looks at whole MQTT packets."""
import socket
import threading

_open = set()
_lock = threading.Lock()


def packets(buffer):
    """Splits whole MQTT packets off the front of buffer: (packets, rest)."""
    found = []
    while len(buffer) >= 2:
        remaining, multiplier, index = 0, 1, 1
        while True:
            if index >= len(buffer):
                return found, buffer
            byte = buffer[index]
            remaining += (byte & 0x7F) * multiplier
            multiplier *= 128
            index += 1
            if byte & 0x80 == 0:
                break
        end = index + remaining
        if end > len(buffer):
            return found, buffer
        found.append(buffer[:end])
        buffer = buffer[end:]
    return found, buffer


def packet_filter(keep):
    """A filter of one connection's client side: whole MQTT packets on, each one `keep(packet)`
    refuses left out (a packet split across reads waits for its rest)."""
    buffer = b""

    def forward(data):
        nonlocal buffer
        whole, buffer = packets(buffer + data)
        return b"".join(packet for packet in whole if keep(packet))

    return forward


def is_publish_holding(packet, marker):
    return packet[0] >> 4 == 3 and marker in packet


def cut():
    """Closes both ends of every connection open, as a network that goes away."""
    with _lock:
        sockets = list(_open)
    for sock in sockets:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def pump(source, destination, forward):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            passed = forward(data)
            if passed:
                destination.sendall(passed)
    except OSError:
        pass
    finally:
        try:
            destination.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def connect(client, upstream, outbound, inbound):
    """Copies both ways until both directions end, then closes the pair (and `cut` forgets it)."""
    with _lock:
        _open.update((client, upstream))
    pumps = [
        threading.Thread(target=pump, args=(client, upstream, outbound), daemon=True),
        threading.Thread(target=pump, args=(upstream, client, inbound), daemon=True),
    ]
    for thread in pumps:
        thread.start()
    for thread in pumps:
        thread.join()
    with _lock:
        _open.difference_update((client, upstream))
    client.close()
    upstream.close()


def serve(listen_port, target_port, outbound, inbound, admit=lambda: True):
    """outbound() and inbound() make each connection's filters: client to target, and back."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", listen_port))
    server.listen(64)
    print("listening", flush=True)
    while True:
        client, _ = server.accept()
        if not admit():
            client.close()
            continue
        try:
            upstream = socket.create_connection(("127.0.0.1", target_port))
        except OSError:
            client.close()
            continue
        threading.Thread(target=connect, args=(client, upstream, outbound(), inbound()), daemon=True).start()
