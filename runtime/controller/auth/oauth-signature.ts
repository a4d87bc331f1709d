/**
 * OAuth 1.0a HMAC-SHA1 signatures (RFC 5849) as the platform's OAuth clients make and check them:
 * two-legged (consumer key and secret, no token), parameters in the `Authorization: OAuth ...`
 * header, the query part of the signature base string, a JSON body not (docs/platform-forms.md
 * §1.2, §2.2, §2.3). The base string and the HMAC are the `oauth-1.0a` library's; this module adds
 * what the library leaves to its callers: reading the header, normalising the URL and decoding
 * the query exactly as oauthlib (the Python library FallBall and the Connect extension use) does.
 */
import { createHmac, randomBytes } from "node:crypto";
import OAuth from "oauth-1.0a";

/** The only signature method offered: what requests-oauthlib sends by default and the platform's connectors verify. */
export const SIGNATURE_METHOD = "HMAC-SHA1";

/** Parameters of an OAuth request, decoded; a name sent more than once keeps all its values. */
type OAuthParams = Record<string, string | string[]>;

function hmacSha1(baseString: string, key: string): string {
  return createHmac("sha1", key).update(baseString).digest("base64");
}

function library(key: string, secret: string): OAuth {
  const oauth = new OAuth({ consumer: { key, secret }, signature_method: SIGNATURE_METHOD, hash_function: hmacSha1 });
  // The library's nonce comes from Math.random; a nonce must not be guessable. 32 alphanumerics
  // fit what oauthlib validators accept (16-50 characters, letters and digits; platform-forms row 4).
  oauth.getNonce = () => alphanumeric(32);
  return oauth;
}

const ALPHANUMERIC = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

function alphanumeric(length: number): string {
  // 248 = 4 * 62: bytes at or above it are dropped, so every character is equally likely.
  let out = "";
  while (out.length < length)
    for (const b of randomBytes(length * 2)) if (b < 248 && out.length < length) out += ALPHANUMERIC[b % 62];
  return out;
}

/**
 * The base string URI of RFC 5849 3.4.1.2 for a URL: scheme and host in lower case, the port only
 * when it is not the scheme's default, the path as it was sent (percent-encoding and trailing
 * slash kept), no query. oauthlib's `base_string_uri` does the same.
 */
export function baseStringUri(url: string): string {
  const u = new URL(url);
  const scheme = u.protocol.toLowerCase();
  const defaultPort = (scheme === "https:" && u.port === "443") || (scheme === "http:" && u.port === "80");
  // `new URL` already drops a default port and lower-cases the host; the path is kept as sent.
  const rawPath = rawPathOf(url);
  return `${scheme}//${u.hostname.toLowerCase()}${u.port && !defaultPort ? `:${u.port}` : ""}${rawPath || "/"}`;
}

/** The path of an absolute URL as written (WHATWG `URL` would re-encode some characters). */
function rawPathOf(url: string): string {
  const afterScheme = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "");
  return afterScheme.replace(/[?#].*$/s, "");
}

/** The query of a URL as written, without `?`. */
export function rawQueryOf(url: string): string {
  const q = url.indexOf("?");
  if (q < 0) return "";
  const hash = url.indexOf("#", q);
  return url.slice(q + 1, hash < 0 ? undefined : hash);
}

/**
 * A query decoded as `application/x-www-form-urlencoded` (RFC 5849 3.4.1.3.1), the way oauthlib
 * reads it (Python's `parse_qsl` with blank values kept): pairs split on `&`, a piece without `=`
 * is a name with an empty value (RQL such as `implementing(...)`), `+` is a space, and bad
 * percent sequences or UTF-8 decode to U+FFFD instead of failing.
 */
export function formDecode(query: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const piece of query.split("&")) {
    if (piece === "") continue;
    const eq = piece.indexOf("=");
    const [name, value] = eq < 0 ? [piece, ""] : [piece.slice(0, eq), piece.slice(eq + 1)];
    pairs.push([percentDecode(name.replace(/\+/g, " ")), percentDecode(value.replace(/\+/g, " "))]);
  }
  return pairs;
}

function percentDecode(text: string): string {
  if (!text.includes("%")) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === "%" && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else for (const b of Buffer.from(text[i]!, "utf8")) bytes.push(b);
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Name/value pairs as the library takes them: a name sent twice becomes an array of its values. */
function grouped(pairs: readonly [string, string][]): OAuthParams {
  // No prototype: a parameter named `__proto__` is a parameter, not a prototype.
  const out: OAuthParams = Object.create(null) as OAuthParams;
  for (const [name, value] of pairs) {
    const known = out[name];
    out[name] = known === undefined ? value : Array.isArray(known) ? [...known, value] : [known, value];
  }
  return out;
}

/**
 * The HMAC-SHA1 signature of a request: `method`, the base string URI, and every parameter of the
 * base string (the `oauth_*` ones but the signature, and the decoded query pairs).
 */
export function signatureOf(
  method: string,
  baseUri: string,
  params: readonly [string, string][],
  consumerSecret: string,
): string {
  // All parameters go in as the library's oauth data: it leaves request.data out of the base
  // string when oauth_body_hash is present, but query parameters belong there all the same.
  return library("", consumerSecret).getSignature(
    { method: method.toUpperCase(), url: baseUri, data: {} },
    undefined,
    grouped(params) as unknown as OAuth.Data,
  );
}

/**
 * The `Authorization` header for a call to `url` signed with the consumer key and secret: a fresh
 * nonce and timestamp, `oauth_version="1.0"`, parameters in the library's (alphabetical) order,
 * so `oauth_consumer_key` comes first and never last (the Connect extension finds the key with a
 * pattern that needs a comma after it, platform-forms §2.3). A JSON body is not signed.
 */
export function authorizationHeader(method: string, url: string, consumer: { key: string; secret: string }): string {
  const oauth = library(consumer.key, consumer.secret);
  const data = grouped(formDecode(rawQueryOf(url)));
  const signed = oauth.authorize({ method: method.toUpperCase(), url: baseStringUri(url), data });
  const oauthOnly = Object.fromEntries(
    Object.entries(signed).filter(([k]) => k.startsWith("oauth_")),
  ) as OAuth.Authorization;
  return oauth.toHeader(oauthOnly).Authorization;
}

/**
 * The parameters of an `Authorization: OAuth k="v", ...` header, percent-decoded (RFC 5849
 * 3.5.1), or undefined when the header is not of the OAuth scheme. Throws on a malformed one.
 */
export function parseAuthorization(header: string | undefined): [string, string][] | undefined {
  if (!header || !/^OAuth(\s|$)/i.test(header)) return undefined;
  const rest = header.slice(5).trim();
  const pairs: [string, string][] = [];
  const pattern = /\s*([A-Za-z0-9_.~%-]+)\s*=\s*"([^"]*)"\s*(,|$)/y;
  let at = 0;
  while (at < rest.length) {
    pattern.lastIndex = at;
    const m = pattern.exec(rest);
    if (!m) throw new Error('the Authorization header is not a list of name="value" pairs');
    pairs.push([percentDecode(m[1]!), percentDecode(m[2]!)]);
    at = pattern.lastIndex;
  }
  return pairs;
}
