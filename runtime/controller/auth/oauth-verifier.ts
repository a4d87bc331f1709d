/**
 * Application authentication by OAuth 1.0a (issue 16 item 6; docs/aps/security.md, "Application
 * credentials"): an instance installed with `auth.oauth {key, secret}` signs its calls to the
 * controller the way FallBall and the Connect extension do (requests-oauthlib: two-legged HMAC-SHA1
 * in the `Authorization` header, query signed, JSON body not; platform-forms §1.2, §1.3). A request
 * passes when the key is an instance's, the signature checks out over the URL the client called,
 * the timestamp is within {@link DEFAULT_OAUTH_WINDOW_SECONDS} of the controller's clock, and the
 * nonce was not used before (in any process sharing the database: oauth-nonces.ts).
 */
import { timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import type { HttpBindings } from "@hono/node-server";
import type { TLSSocket } from "node:tls";
import { ControllerError } from "../support/errors.ts";
import type { OAuthNonces } from "./oauth-nonces.ts";
import {
  baseStringUri,
  formDecode,
  parseAuthorization,
  rawQueryOf,
  signatureOf,
  SIGNATURE_METHOD,
} from "./oauth-signature.ts";

/**
 * How far a request's `oauth_timestamp` may be from the controller's clock, either way. The
 * platform documents none; 5 minutes is the usual bound (oauthlib, which the platform's Python
 * connectors verify with, allows 10).
 */
const DEFAULT_OAUTH_WINDOW_SECONDS = 300;

/** Longest nonce stored (RFC 5849 sets none; oauthlib validators take 16-50 characters). */
const MAX_NONCE = 128;

/**
 * Where the verifier finds an instance and its consumer secret by consumer key (also an instance
 * being installed, by the install's transaction id: InstanceLookup.byOAuthKey).
 */
export interface OAuthInstances {
  byOAuthKey(
    key: string,
    transactionId?: string,
  ): Promise<{ readonly instanceId: string; readonly secret: string } | undefined>;
}

const REQUIRED = [
  "oauth_consumer_key",
  "oauth_signature",
  "oauth_signature_method",
  "oauth_timestamp",
  "oauth_nonce",
] as const;

export class OAuthVerifier {
  constructor(
    private readonly instances: OAuthInstances,
    private readonly nonces: OAuthNonces,
    private readonly options: { readonly windowSeconds: number; readonly now?: () => number } = {
      windowSeconds: DEFAULT_OAUTH_WINDOW_SECONDS,
    },
  ) {}

  /**
   * The id of the instance whose key signed the request; undefined when the request has no
   * `Authorization: OAuth` header (it may bring other credentials); ControllerError(401) when it has one
   * that does not check out.
   */
  async verify(c: Context): Promise<string | undefined> {
    let header: [string, string][] | undefined;
    try {
      header = parseAuthorization(c.req.header("authorization"));
    } catch (error) {
      throw new ControllerError(401, `The OAuth Authorization header cannot be read: ${(error as Error).message}.`);
    }
    if (!header) return undefined;
    const oauth = new Map<string, string>();
    for (const [name, value] of header) {
      if (name === "realm") continue;
      if (oauth.has(name)) throw new ControllerError(401, `The OAuth Authorization header names ${name} twice.`);
      oauth.set(name, value);
    }
    for (const name of REQUIRED)
      if (!oauth.get(name))
        throw new ControllerError(401, `The OAuth Authorization header has no ${name}; send ${REQUIRED.join(", ")}.`);
    const key = oauth.get("oauth_consumer_key")!;
    const nonce = oauth.get("oauth_nonce")!;
    if (oauth.get("oauth_signature_method") !== SIGNATURE_METHOD)
      throw new ControllerError(
        401,
        `OAuth signature method ${oauth.get("oauth_signature_method")} is not offered; sign with ${SIGNATURE_METHOD}.`,
      );
    const version = oauth.get("oauth_version");
    if (version !== undefined && version !== "1.0")
      throw new ControllerError(401, `oauth_version ${version} is not 1.0.`);
    if (oauth.get("oauth_token"))
      throw new ControllerError(
        401,
        "Application calls are two-legged OAuth: sign with the consumer key and secret only, no oauth_token.",
      );
    if (nonce.length > MAX_NONCE)
      throw new ControllerError(401, `The oauth_nonce is longer than ${MAX_NONCE} characters.`);

    const timestamp = oauth.get("oauth_timestamp")!;
    const now = (this.options.now ?? Date.now)();
    const seconds = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
    if (!Number.isFinite(seconds) || Math.abs(now / 1000 - seconds) > this.options.windowSeconds) {
      throw new ControllerError(
        401,
        `The oauth_timestamp ${timestamp.slice(0, 20)} is more than ${this.options.windowSeconds} s from the controller's clock (${Math.floor(now / 1000)}); sign each request when it is sent.`,
      );
    }

    const found = await this.instances.byOAuthKey(key, c.req.header("aps-transaction-id"));
    if (!found)
      throw new ControllerError(
        401,
        `No application instance has the OAuth consumer key ${JSON.stringify(key.slice(0, 80))}.`,
      );

    const query = formDecode(rawQueryOf(requestTarget(c)));
    for (const [name] of query)
      if (oauth.has(name))
        throw new ControllerError(401, `${name} is both in the query and in the OAuth Authorization header.`);
    const params: [string, string][] = [...[...oauth].filter(([name]) => name !== "oauth_signature"), ...query];
    const sent = Buffer.from(oauth.get("oauth_signature")!);
    const matches = signedUrls(c).some((url) => {
      const expected = Buffer.from(signatureOf(c.req.method, baseStringUri(url), params, found.secret));
      return expected.length === sent.length && timingSafeEqual(expected, sent);
    });
    if (!matches)
      throw new ControllerError(
        401,
        `The OAuth signature does not match this request (${c.req.method} ${urlForMessage(c)}) signed with the secret of key ${JSON.stringify(key.slice(0, 80))}.`,
      );

    // Only a request that proves the secret uses up its nonce.
    const expires = (seconds + this.options.windowSeconds + 60) * 1000;
    if (!(await this.nonces.take(key, nonce, expires)))
      throw new ControllerError(
        401,
        `The oauth_nonce ${JSON.stringify(nonce.slice(0, 60))} was already used; every request needs a new nonce (a request sent again is refused).`,
      );
    return found.instanceId;
  }
}

/** The request target as it came on the wire: path and query, percent-encoding and slashes kept. */
function requestTarget(c: Context): string {
  const raw = (c.env as Partial<HttpBindings> | undefined)?.incoming?.url;
  if (typeof raw === "string" && raw.length > 0)
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "") || "/" : raw;
  const url = c.req.url;
  return url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "") || "/";
}

/**
 * The URLs the client may have signed: the one it reached (scheme of the socket, `Host` header,
 * the request target as sent), and, when a proxy in front of the controller says so, the one
 * `X-Forwarded-Proto` and `X-Forwarded-Host` name (the Connect extension rebuilds its own URL
 * from the same headers, platform-forms §2.3). Accepting the second does not widen what a
 * signature proves: the client still signed this method, path, query and nonce with the secret,
 * and the nonce is spent on the first use whatever host it names.
 */
function signedUrls(c: Context): string[] {
  const target = requestTarget(c);
  const incoming = (c.env as Partial<HttpBindings> | undefined)?.incoming;
  const urls: string[] = [];
  const host = c.req.header("host");
  if (incoming && host)
    urls.push(`${(incoming.socket as TLSSocket | undefined)?.encrypted ? "https" : "http"}://${host}${target}`);
  else urls.push(c.req.url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#]*).*$/is, "$1") + target);
  const proto = c.req.header("x-forwarded-proto")?.split(",")[0]?.trim();
  const forwardedHost = c.req.header("x-forwarded-host")?.split(",")[0]?.trim();
  if (forwardedHost && /^https?$/i.test(proto ?? "https"))
    urls.push(`${(proto ?? "https").toLowerCase()}://${forwardedHost}${target}`);
  return urls.filter((url) => {
    try {
      new URL(url);
      return true;
    } catch {
      return false;
    }
  });
}

function urlForMessage(c: Context): string {
  const path = requestTarget(c);
  return path.length > 120 ? `${path.slice(0, 120)}...` : path;
}
