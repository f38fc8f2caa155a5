#!/usr/bin/env python3
"""A TCP proxy for the tests: forwards 127.0.0.1:LISTEN to 127.0.0.1:TARGET until the client
sends a PUBLISH holding MARKER. That PUBLISH never arrives: the network goes away with it in
flight, every connection cut, and for SECONDS each new one is closed as soon as it comes.
Then the network is back, for good, and passes everything. An outage that begins in the
middle of a send.

    outage_proxy.py LISTEN TARGET MARKER SECONDS
"""
import sys
import threading
import time

from tcp_proxy import cut, is_publish_holding, packet_filter, serve

listen_port, target_port, marker = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()
seconds = float(sys.argv[4])
state = {"began": None}


def down():
    began = state["began"]
    return began is not None and time.monotonic() - began < seconds


def keep(packet):
    """Every packet while the network is up; the marked PUBLISH takes it down, unsent."""
    if state["began"] is None and is_publish_holding(packet, marker):
        state["began"] = time.monotonic()
        print("outage: cut with a PUBLISH of", len(packet), "bytes in flight", flush=True)
        threading.Timer(seconds, lambda: print("outage over", flush=True)).start()
        cut()
        return False
    return not down()


serve(
    listen_port, target_port, lambda: packet_filter(keep), lambda: lambda data: b"" if down() else data,
    admit=lambda: not down())
