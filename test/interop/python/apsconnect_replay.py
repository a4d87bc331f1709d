"""The REST calls of cloudblue/apsconnect-cli (apsconnectcli/hub.py), made the way it makes them.

Issue 16 item 4. The calls go through `requests` exactly as hub.py's APS class sends them:
'{}/{}'.format(base, uri) with URIs written without a leading slash (one with it, so a double
slash), headers {'APS-Token': token}, json= bodies, verify=False (hub.py:705-732). Its OA XML-RPC
steps are not replayed: aps-gen does not serve OA RPC. The script also runs the connector's
endpoint, plain HTTP on 127.0.0.1 as a connector behind Connect's proxy is reached, answering the
install and the uninstall. argv: controller-url aps-token app-meta-id settings-json
Prints one JSON object with what each step read.
"""
import http.server, json, sys, threading
import requests, urllib3

urllib3.disable_warnings()
base, token, connector_id, settings = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
received = []


class Endpoint(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        if data:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        received.append({"method": "POST", "path": self.path, "oauth": self.headers.get("Authorization", "").startswith("OAuth "), "settings": {k: body.get(k) for k in settings}})
        self.answer(200, {})

    def do_DELETE(self):
        received.append({"method": "DELETE", "path": self.path})
        self.answer(204)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Endpoint)
threading.Thread(target=server.serve_forever, daemon=True).start()
backend_url = "http://127.0.0.1:{}".format(server.server_address[1])


class APS(object):
    """hub.py:705-732."""

    def __init__(self, token, url):
        self.url = url
        self.token = {"APS-Token": token}

    def get(self, uri):
        return requests.get("{}/{}".format(self.url, uri), headers=self.token, verify=False)

    def post(self, uri, json=None):
        return requests.post("{}/{}".format(self.url, uri), headers=self.token, json=json, verify=False)

    def delete(self, uri):
        return requests.delete("{}/{}".format(self.url, uri), headers=self.token, verify=False)


aps = APS(token, base)
out = {}

# The connectivity probe (hub.py:75-76).
r = aps.get("aps/2/applications/")
r.raise_for_status()
out["probe"] = r.status_code

# create_instance (hub.py:233-269): the payload, then the settings merged at top level.
payload = {
    "aps": {
        "package": {"type": connector_id, "version": "1.0", "release": "1"},
        "endpoint": backend_url,
        "network": "proxy",
        "auth": {"oauth": {"key": "replay-key", "secret": "replay-secret"}},
    },
}
payload.update(settings)
r = aps.post("aps/2/applications/", json=payload)
r.raise_for_status()
out["install"] = r.status_code
instance_uuid = r.json()["app"]["aps"]["id"]
out["app_id"] = instance_uuid
out["instance"] = r.json()["aps"]["id"]

# _get_package and _is_service_profile_supported (hub.py:315-329).
r = aps.get("aps/2/resources/{}".format(instance_uuid))
r.raise_for_status()
package_uuid = r.json()["aps"]["package"]["id"]
r = aps.get("aps/2/packages/{}".format(package_uuid))
r.raise_for_status()
services = r.json()["services"]
out["item_profile"] = "itemProfile" in services.keys()
out["services"] = sorted(services.keys())

# check_package_operation reads aps.type with the double slash (hub.py:197-211).
r = aps.get("/aps/2/resources/{}".format(instance_uuid))
out["type"] = r.json()["aps"]["type"]

# _type_manager_available (hub.py:380-390), then a resource type lookup (:416-446).
r = aps.get("aps/2/services/resource-type-manager")
r.raise_for_status()
out["type_manager"] = r.status_code
out["resource_type"] = aps.get("aps/2/services/resource-type-manager/resourceTypes/{}".format(42)).status_code

# A failed install: hub.py:258-263 prints error and message from the body.
bad = dict(payload, aps=dict(payload["aps"], package={"type": connector_id, "version": "9.9", "release": "1"}))
r = aps.post("aps/2/applications/", json=bad)
out["refused"] = {"status": r.status_code, "text": "{} {}".format(r.json()["error"], r.json()["message"])}

r = aps.delete("aps/2/applications/{}".format(out["instance"]))
r.raise_for_status()
out["uninstall"] = r.status_code
out["endpoint"] = received
print(json.dumps(out))
