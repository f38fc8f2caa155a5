#!/usr/bin/env python3
"""A TCP proxy for the tests: forwards 127.0.0.1:LISTEN to 127.0.0.1:TARGET, reading the
client's side as MQTT packets and dropping every PUBLISH whose bytes hold MARKER, whole and
silently: the broker never sees it, so it is never acknowledged, while every other packet
(other publications, pings, probes) goes through. A broker that answers everything but one
message, as no real broker can be made to behave.

    dropping_proxy.py LISTEN TARGET MARKER
"""
import sys

from tcp_proxy import is_publish_holding, packet_filter, serve

listen_port, target_port, marker = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()


def keep(packet):
    if is_publish_holding(packet, marker):
        print("dropped a PUBLISH of", len(packet), "bytes", flush=True)
        return False
    return True


serve(listen_port, target_port, lambda: packet_filter(keep), lambda: lambda data: data)
