"""An APS application endpoint that authenticates by OAuth 1.0a, in plain Python (no aps-gen code).

Issue 16 item 6, as FallBall and the Connect extension do it: plain http (FallBall's Flask app),
every call from the controller must carry a valid HMAC-SHA1 signature for KEY/SECRET over the URL
named by X-Forwarded-Proto/-Host (the Connect extension rebuilds its URL from them) and is refused
with 401 otherwise; calls back to the controller go to the APS-Controller-URI of the install call,
signed the same way (oauth1.py).

`GET /probe?method=M&path=P&mode=good|badsig|stale|replay|unknownkey` calls the controller and
answers with what came back; `GET /seen` lists the calls it took and refused.
argv: port-file key secret controller-ca-file
"""
import http.server, json, os, ssl, sys, threading, time, urllib.error, urllib.parse, urllib.request

sys.path.insert(0, __import__("os").path.dirname(__file__))
import oauth1

port_file, key, secret, controller_ca = sys.argv[1:5]
state = {"taken": [], "refused": [], "nonces": set(), "controller": None}
lock = threading.Lock()


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

    def from_controller(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if length else b""
        proto, host = self.headers.get("X-Forwarded-Proto"), self.headers.get("X-Forwarded-Host")
        if not proto or not host:
            # The Connect extension answers 500 here (KeyError in get_real_url).
            return self.refuse(500, "no X-Forwarded-Proto/-Host to rebuild the signed URL from")
        url = f"{proto}://{host}{self.path}"
        with lock:
            why = oauth1.verify(self.command, url, self.headers.get("Authorization"), key, secret, state["nonces"])
        if why:
            return self.refuse(401, why)
        with lock:
            state["taken"].append({"method": self.command, "path": self.path, "controller": self.headers.get("APS-Controller-URI")})
            state["controller"] = self.headers.get("APS-Controller-URI") or state["controller"]
        self.reply(200, {})

    def refuse(self, status, why):
        with lock:
            state["refused"].append({"method": self.command, "path": self.path, "why": why})
        self.reply(status, {"message": why})

    do_POST = do_PUT = do_DELETE = from_controller

    def do_GET(self):
        parsed = urllib.parse.urlparse(self.path)
        if parsed.path == "/seen":
            with lock:
                return self.reply(200, {"taken": state["taken"], "refused": state["refused"]})
        if parsed.path != "/probe":
            return self.from_controller()
        query = dict(urllib.parse.parse_qsl(parsed.query))
        method, mode = query.get("method", "GET"), query.get("mode", "good")
        url = urllib.parse.urljoin(state["controller"], query["path"])
        sign_key = "not-a-key-of-anyone" if mode == "unknownkey" else key
        sign_secret = "wrong-" + secret if mode == "badsig" else secret
        stamp = int(time.time()) - 3600 if mode == "stale" else None
        headers = {"Authorization": oauth1.header(method, url, sign_key, sign_secret, timestamp=stamp), "Content-Type": "application/json"}
        context = ssl.create_default_context(cafile=controller_ca)
        statuses, body = [], None
        for _ in range(2 if mode == "replay" else 1):
            # The same prepared request twice, as FallBall and the Connect extension resend it after a 400.
            request = urllib.request.Request(url, method=method, headers=headers, data=query.get("body", "").encode() or None)
            try:
                with urllib.request.urlopen(request, context=context) as r:
                    statuses.append(r.status)
                    body = json.loads(r.read() or b"null")
            except urllib.error.HTTPError as e:
                statuses.append(e.code)
                body = e.read().decode()
            except urllib.error.URLError as e:
                return self.reply(502, {"statuses": statuses, "body": f"{e.reason} at {url}", "url": url})
        self.reply(200, {"statuses": statuses, "body": body, "url": url})


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
# Written whole, then renamed into place: the test reads the file as soon as it exists.
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(port_file + ".tmp", port_file)
server.serve_forever()
