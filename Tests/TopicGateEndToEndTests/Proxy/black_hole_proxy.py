#!/usr/bin/env python3
"""A TCP proxy for the tests: forwards 127.0.0.1:LISTEN to 127.0.0.1:TARGET and, while the
file FLAG exists, drops every byte in both directions without closing anything: a black hole,
as a firewall's or a load balancer's idle timeout leaves a connection.

    black_hole_proxy.py LISTEN TARGET FLAG
"""
import os
import socket
import sys
import threading

listen_port, target_port, flag = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]


def pump(source, destination):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            if os.path.exists(flag):
                continue
            destination.sendall(data)
    except OSError:
        pass
    finally:
        try:
            destination.shutdown(socket.SHUT_WR)
        except OSError:
            pass


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
    threading.Thread(target=pump, args=(client, upstream), daemon=True).start()
    threading.Thread(target=pump, args=(upstream, client), daemon=True).start()
