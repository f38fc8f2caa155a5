#!/usr/bin/env python3
"""A TCP proxy for the tests: forwards 127.0.0.1:LISTEN to 127.0.0.1:TARGET and, while the
file FLAG exists, drops every byte in both directions without closing anything: a black hole,
as a firewall's or a load balancer's idle timeout leaves a connection.

    black_hole_proxy.py LISTEN TARGET FLAG
"""
import os
import sys

from tcp_proxy import serve

listen_port, target_port, flag = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]


def black_hole():
    return lambda data: b"" if os.path.exists(flag) else data


serve(listen_port, target_port, black_hole, black_hole)
