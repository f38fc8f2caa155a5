#!/usr/bin/env python3
"""A TCP proxy for the tests: forwards 127.0.0.1:LISTEN to 127.0.0.1:TARGET, reading the
client's side as MQTT packets and dropping every PUBLISH whose bytes hold MARKER, whole and
silently: the broker never sees it, so it is never acknowledged, while every other packet
(other publications, pings, probes) goes through. A broker that answers everything but one
message, as no real broker can be made to behave.

    dropping_proxy.py LISTEN TARGET MARKER
"""
import sys

from tcp_proxy import serve

listen_port, target_port, marker = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()


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
