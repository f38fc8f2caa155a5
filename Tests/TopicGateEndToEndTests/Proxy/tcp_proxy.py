"""What the tests' TCP proxies share: accept on 127.0.0.1:LISTEN, connect each client to
127.0.0.1:TARGET, and copy both ways, each chunk through a filter of that connection and
direction that returns the bytes to pass on (b"" for none)."""
import socket
import threading


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


def serve(listen_port, target_port, outbound, inbound):
    """outbound() and inbound() make each connection's filters: client to target, and back."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", listen_port))
    server.listen(64)
    print("listening", flush=True)
    while True:
        client, _ = server.accept()
        try:
            upstream = socket.create_connection(("127.0.0.1", target_port))
        except OSError:
            client.close()
            continue
        threading.Thread(target=pump, args=(client, upstream, outbound()), daemon=True).start()
        threading.Thread(target=pump, args=(upstream, client, inbound()), daemon=True).start()
