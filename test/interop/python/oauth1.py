"""OAuth 1.0a HMAC-SHA1 (RFC 5849), two-legged, written from the RFC with the standard library only.

Test code, independent of aps-gen's TypeScript: it signs as requests-oauthlib does (parameters in
the Authorization header in its order, the query signed, a JSON body not) and verifies as the
oauthlib validators of FallBall and the Connect extension do (key not last, nonce of 16-50 letters
and digits, oauth_version 1.0, timestamp within 10 minutes), plus a replay check of its own.

As a program: `python3 oauth1.py METHOD URL KEY SECRET [NONCE TIMESTAMP]` prints an Authorization
header; `python3 oauth1.py --batch` reads a JSON list of [METHOD, URL, KEY, SECRET, NONCE|null,
TIMESTAMP|null] and prints the JSON list of their headers (one interpreter start for many).
"""
import base64, hashlib, hmac, json, re, secrets, string, sys, time, urllib.parse

ALNUM = string.ascii_letters + string.digits


def escape(text):
    return urllib.parse.quote(text, safe="~")


def base_string_uri(url):
    parts = urllib.parse.urlsplit(url)
    scheme, host, port = parts.scheme.lower(), parts.hostname.lower(), parts.port
    default = port is None or (scheme, port) in (("http", 80), ("https", 443))
    return f"{scheme}://{host if default else f'{host}:{port}'}{parts.path or '/'}"


def signature(method, url, oauth_params, secret):
    query = urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query, keep_blank_values=True)
    pairs = [(k, v) for k, v in oauth_params if k not in ("oauth_signature", "realm")] + query
    normalized = "&".join(f"{k}={v}" for k, v in sorted((escape(k), escape(v)) for k, v in pairs))
    base = "&".join([method.upper(), escape(base_string_uri(url)), escape(normalized)])
    key = escape(secret) + "&"
    return base64.b64encode(hmac.new(key.encode(), base.encode(), hashlib.sha1).digest()).decode()


def header(method, url, key, secret, nonce=None, timestamp=None):
    oauth = [
        ("oauth_nonce", nonce or "".join(secrets.choice(ALNUM) for _ in range(32))),
        ("oauth_timestamp", str(timestamp if timestamp is not None else int(time.time()))),
        ("oauth_version", "1.0"),
        ("oauth_signature_method", "HMAC-SHA1"),
        ("oauth_consumer_key", key),
    ]
    oauth.append(("oauth_signature", signature(method, url, oauth, secret)))
    return "OAuth " + ", ".join(f'{k}="{escape(v)}"' for k, v in oauth)


def parse(value):
    if not value or not value.lower().startswith("oauth "):
        return None
    return [(k, urllib.parse.unquote(v)) for k, v in re.findall(r'([A-Za-z0-9_]+)="([^"]*)"', value[6:])]


def verify(method, url, value, key, secret, seen):
    """None when the request is signed right, else why not. `seen` collects nonces (replays refused)."""
    params = parse(value)
    if params is None:
        return "no OAuth Authorization header"
    if not re.search(r'oauth_consumer_key="(.+?)",', value):
        return "oauth_consumer_key is missing or last (the Connect extension's pattern needs a comma after it)"
    found = dict(params)
    if found.get("oauth_consumer_key") != key:
        return "unknown consumer key"
    if found.get("oauth_signature_method") != "HMAC-SHA1" or found.get("oauth_version", "1.0") != "1.0":
        return "not HMAC-SHA1 / OAuth 1.0"
    nonce = found.get("oauth_nonce", "")
    if not (16 <= len(nonce) <= 50 and all(ch in ALNUM for ch in nonce)):
        return "nonce is not 16-50 letters and digits"
    if abs(time.time() - int(found.get("oauth_timestamp", "0"))) > 600:
        return "stale timestamp"
    if not hmac.compare_digest(signature(method, url, params, secret), found.get("oauth_signature", "")):
        return "bad signature"
    if nonce in seen:
        return "replayed nonce"
    seen.add(nonce)
    return None


if __name__ == "__main__" and sys.argv[1:] == ["--batch"]:
    print(json.dumps([header(*request) for request in json.load(sys.stdin)]))
elif __name__ == "__main__":
    method, url, key, secret = sys.argv[1:5]
    nonce = sys.argv[5] if len(sys.argv) > 5 else None
    timestamp = int(sys.argv[6]) if len(sys.argv) > 6 else None
    print(header(method, url, key, secret, nonce, timestamp))
