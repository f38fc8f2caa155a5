#!/usr/bin/env python3
"""A TCP proxy for the tests: forwards 127.0.0.1:LISTEN to 127.0.0.1:TARGET, reading the
client's side as MQTT packets and dropping every PUBLISH whose bytes hold MARKER, whole and
silently: the broker never sees it, so it is never acknowledged, while every other packet
(other publications, pings, probes) goes through. A broker that answers everything but one
message, as no real broker can be made to behave.

    dropping_proxy.py LISTEN TARGET MARKER
"""
import sys

from tcp_proxy import packets, serve

listen_port, target_port, marker = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()


def dropping():
    """A filter of one connection's client side: whole packets on, those to drop left out."""
    buffer = b""

    def forward(data):
        nonlocal buffer
        whole, buffer = packets(buffer + data)
        kept = []
        for packet in whole:
            if packet[0] >> 4 == 3 and marker in packet:
                print("dropped a PUBLISH of", len(packet), "bytes", flush=True)
                continue
            kept.append(packet)
        return b"".join(kept)

    return forward


serve(listen_port, target_port, dropping, lambda: lambda data: data)
