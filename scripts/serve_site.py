#!/usr/bin/env python3
"""Serve a directory on 127.0.0.1 the way a real web server does: ETag, Last-Modified,
conditional GET (304), HEAD, correct content types. Used by `make demo` for examples/site/.
`__SITE__` in .xml and .txt files is replaced by this server's base URL.

    serve_site.py ROOT PORT [--pidfile FILE]
"""
import argparse
import email.utils
import hashlib
import http.server
import mimetypes
import os
import sys

mimetypes.add_type("application/vnd.openxmlformats-officedocument.wordprocessingml.document", ".docx")
mimetypes.add_type("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ".xlsx")
mimetypes.add_type("application/epub+zip", ".epub")
mimetypes.add_type("text/markdown", ".md")


class Handler(http.server.SimpleHTTPRequestHandler):
    server_version = "kerai-demo-site/1.0"

    def log_message(self, fmt, *args):  # quiet: the crawl report says what happened
        pass

    def send_head(self):
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            index = os.path.join(path, "index.html")
            if not os.path.exists(index):
                self.send_error(404, "Not Found")
                return None
            path = index
        if not os.path.isfile(path):
            self.send_error(404, "Not Found")
            return None
        with open(path, "rb") as f:
            body = f.read()
        if path.endswith((".xml", ".txt")):
            # sitemaps and robots.txt name absolute URLs: this server's own.
            body = body.replace(b"__SITE__", self.server.base.encode())
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        mtime = os.path.getmtime(path)
        last_modified = email.utils.formatdate(mtime, usegmt=True)
        if self.headers.get("If-None-Match") == etag or (
            self.headers.get("If-None-Match") is None
            and self.headers.get("If-Modified-Since") == last_modified
        ):
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", last_modified)
            self.end_headers()
            return None
        ctype = mimetypes.guess_type(path)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype in ("application/xml",):
            ctype += "; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", last_modified)
        self.end_headers()
        import io
        return io.BytesIO(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("port", type=int)
    ap.add_argument("--pidfile")
    args = ap.parse_args()
    os.chdir(args.root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.base = "http://127.0.0.1:%d" % args.port
    if args.pidfile:
        with open(args.pidfile, "w") as f:
            f.write(str(os.getpid()))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
