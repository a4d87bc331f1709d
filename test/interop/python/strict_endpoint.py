"""An APS endpoint in plain Python (http.server + ssl) that routes strictly, as the real connectors do.

- Provisioning is served at `POST /<service>` only; `POST /<service>/` is answered with the 307 that
  Starlette's redirect_slashes gives FastAPI routes such as the Connect extension's `/tenant`
  (docs/platform-forms.md §2.3, §4 Q4). The controller does not follow redirects.
- The tenant's `onMailboxChanged` handler is served only at its operation path on the subscriber,
  `POST /tenants/<id>/onMailboxChanged`, as FallBall serves `/tenant/<id>/onUsersChange`
  (platform-forms §2.2) and the Connect extension `/globals/<app>/accountDataChange` (§2.3).
- `onDomainLinked` is served only in the events form, `POST /tenants/events/<id>/onDomainLinked`,
  for an endpoint written to that form (docs/aps/events.md).
- Everything else is a 404 with FastAPI's body. `GET /seen` lists every call, routed or not.
argv: port-file server-cert server-key
"""
import http.server, json, os, re, ssl, sys

port_file, server_cert, server_key = sys.argv[1:4]
SERVICES = {"cloudmail", "tenants", "domains", "mailboxes"}
UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
seen = []


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body=None, headers=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        return json.loads(raw) if raw else None

    def record(self, status, body):
        seen.append({"method": self.command, "path": self.path, "status": status, "body": body})

    def do_POST(self):
        body = self.body()
        path = self.path.split("?")[0]
        service = path.strip("/").split("/")[0]
        if path.endswith("/") and path.rstrip("/") in {"/" + s for s in SERVICES}:
            self.record(307, body)
            return self.reply(307, None, {"Location": path.rstrip("/")})
        if path in {"/" + s for s in SERVICES}:
            self.record(200, body)
            return self.reply(200, {})
        if re.fullmatch(f"/tenants/{UUID}/onMailboxChanged", path) or re.fullmatch(f"/tenants/events/{UUID}/onDomainLinked", path):
            self.record(200, body)
            return self.reply(200, {})
        self.record(404, body)
        self.reply(404, {"detail": "Not Found"})

    def do_PUT(self):
        body = self.body()
        self.record(200, body)
        self.reply(200, {})

    def do_DELETE(self):
        self.record(204, None)
        self.reply(204)

    def do_GET(self):
        if self.path == "/seen":
            return self.reply(200, seen)
        self.reply(404, {"detail": "Not Found"})


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
tls.load_cert_chain(server_cert, server_key)
server.socket = tls.wrap_socket(server.socket, server_side=True)
# Written whole, then renamed into place: the test reads the file as soon as it exists.
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(port_file + ".tmp", port_file)
server.serve_forever()
