"""The Connect extension's controller calls for items 4 and 5 of issue 16, made as its OA client makes them.

cbcext/services/client/oaclient/__init__.py: urljoin(<controller uri>, path), requests with an
OAuth1 two-legged HMAC-SHA1 signature (here oauth1.py, which signs as requests-oauthlib does),
Content-Type: application/json, `aps-resource-id` to act for the application's root resource,
and only 200 taken as success. The calls: the version probe and the package read of
hub/services.py:168-198, the instance install of :502-540, the schema reads of oaclient:237-295
and the type list of hub/services.py:921-928.
argv: controller-url ca-file oauth-key oauth-secret root-resource-id app-meta-id
Prints one JSON object with what each step read.
"""
import json, os, sys
from urllib.parse import urljoin
import requests

sys.path.insert(0, os.path.dirname(__file__))
from oauth1 import header  # noqa: E402

base, ca, key, secret, app_id, connector_type = sys.argv[1:7]


def send(method, path, body=None, impersonate=True):
    url = urljoin(base, path)
    headers = {"Content-Type": "application/json", "User-Agent": "Connect-Extension-CBC", "Authorization": header(method, url, key, secret)}
    if impersonate:
        headers["aps-resource-id"] = app_id
    r = requests.request(method, url, headers=headers, data=None if body is None else json.dumps(body), verify=ca)
    if r.status_code != 200:
        raise SystemExit("{} {} answered {}: {}".format(method, path, r.status_code, r.text))
    return r.json()


out = {}
# hub/services.py:168-198.
versions = send("GET", "/aps")
out["aps_version"] = max(versions.get("versions").items(), key=lambda x: int(x[1].get("version").replace(".", "")))[1].get("version")
resource = send("GET", "/aps/2/resources/{app_id}".format(app_id=app_id))
meta = send("GET", resource["aps"]["package"]["href"])
out["package"] = [float(meta.get("version")), int(meta.get("release"))]

# oaclient:237-295: the services, then the tenant schema and its counters.
application = send("GET", "aps/2/application", impersonate=False)
tenant_schema = send("GET", application.get("tenants", {}).get("schema"), impersonate=False)
out["tenant_type"] = tenant_schema["id"]
out["counters"] = [name for name, value in tenant_schema.get("properties", {}).items() if "Counter" in value.get("type", "")]

# hub/services.py:921-928.
out["types"] = [t.get("id") for t in send("GET", "aps/2/types?id={type}".format(type=tenant_schema["id"]))]

# hub/services.py:502-540: another instance, the package named by type alone.
installed = send("POST", "aps/2/applications", {"aps": {"package": {"type": connector_type}, "endpoint": os.environ["ENDPOINT"], "network": "proxy", "auth": {"oauth": {"key": key + "-2", "secret": secret}}, "endpointCa": open(os.environ["ENDPOINT_CA"]).read()}, **json.loads(os.environ["SETTINGS"])})
out["installed"] = {"instance": installed["aps"]["id"], "app": installed["app"]["aps"]["id"]}
print(json.dumps(out))
