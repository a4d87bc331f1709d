"""An APS application endpoint in plain Python (http.server + ssl, no aps-gen code).

Issue 16: it takes `aps.x509.self` from the install call, loads it with ssl.load_cert_chain and
calls the controller back with that certificate. `GET /probe?path=<controller path>` makes such a
call and answers with the controller's status and body.
argv: port-file server-cert server-key controller-url controller-ca-file
"""
import http.server, json, os, ssl, sys, tempfile, urllib.parse, urllib.request

port_file, server_cert, server_key, controller_url, controller_ca = sys.argv[1:6]
state = {}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        x509 = body.get("aps", {}).get("x509")
        if x509:
            # Beside the port file, in the test's folder, which the test removes.
            fd, path = tempfile.mkstemp(suffix=".pem", dir=os.path.dirname(port_file))
            with os.fdopen(fd, "w") as f:
                f.write(x509["self"])
            context = ssl.create_default_context(cafile=controller_ca)
            context.load_cert_chain(path)
            state["context"] = context
            state["pem"] = path
        self.reply(200, {})

    def do_GET(self):
        query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query)
        if self.path.startswith("/probe") and "context" in state:
            target = controller_url + query["path"][0]
            try:
                with urllib.request.urlopen(target, context=state["context"]) as r:
                    self.reply(200, {"status": r.status, "body": json.loads(r.read() or b"null"), "pem": state["pem"]})
            except urllib.error.HTTPError as e:
                self.reply(200, {"status": e.code, "body": e.read().decode(), "pem": state["pem"]})
            return
        self.reply(404, {"message": "not here"})


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
tls.load_cert_chain(server_cert, server_key)
server.socket = tls.wrap_socket(server.socket, server_side=True)
# Written whole, then renamed into place: the test reads the file as soon as it exists.
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(port_file + ".tmp", port_file)
server.serve_forever()
