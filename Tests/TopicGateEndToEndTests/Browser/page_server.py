"""Serves the browser test's page from its own origin and stores what the page posts to /results.

Usage: page_server.py PORT DIRECTORY
"""
import http.server
import os
import sys

port, directory = int(sys.argv[1]), sys.argv[2]


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=directory, **kwargs)

    def do_POST(self):
        if self.path != "/results":
            self.send_error(404)
            return
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with open(os.path.join(directory, "results.json.tmp"), "wb") as out:
            out.write(body)
        os.replace(os.path.join(directory, "results.json.tmp"), os.path.join(directory, "results.json"))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
