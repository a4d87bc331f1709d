/**
 * The `APS-Transaction-ID` of a provisioning call (SPEC 4.7) carries what any controller process
 * needs when the application calls back with it while the resource does not exist yet (SPEC 6.1:
 * subscribing for the resource it is creating): the resource, its type, the instance, and during
 * an install the fingerprint of the instance's new certificate. The claims are signed with a key
 * derived from the token key, which every process of one controller shares, so processes keep
 * no state of calls in flight (DESIGN 3: stateless processes on one PostgreSQL).
 *
 * Form: `<base64url claims>.<base64url HMAC-SHA256>`, unique because the resource id is new;
 * header-safe, and opaque to the application, which only sends it back.
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto";

/** What a provisioning transaction is about. */
export interface TransactionClaims {
  readonly resourceId: string;
  readonly typeId: string;
  readonly instanceId: string;
  /** The new instance certificate's SHA-256 fingerprint, while the instance is not stored (install). */
  readonly fingerprint?: string;
  /**
   * The OAuth consumer key of an instance being installed with one, and its secret sealed
   * (encryption.ts, the instance id as context): what any process needs to verify the instance's
   * signed calls before the instance is stored. Opaque to the application, which knows the secret.
   */
  readonly oauth?: { readonly key: string; readonly sealedSecret: string };
}

/** The claims as signed: short keys, since the id travels in every call of the transaction. */
interface Compact {
  readonly r: string;
  readonly t: string;
  readonly i: string;
  readonly f?: string;
  readonly o?: string;
  readonly s?: string;
  /** Expiry, milliseconds since the epoch. */
  readonly x: number;
}

/** How long a ticket is honoured: longer than any synchronous call to an endpoint lasts. */
const VALID_MS = 10 * 60_000;

export class TransactionTickets {
  private readonly key: Buffer;

  constructor(tokenKey: Uint8Array) {
    this.key = Buffer.from(hkdfSync("sha256", tokenKey, Buffer.alloc(0), "aps-gen transaction ticket", 32));
  }

  /** A new transaction id that carries `claims`. */
  issue(claims: TransactionClaims, now = Date.now()): string {
    const short: Compact = { r: claims.resourceId, t: claims.typeId, i: claims.instanceId, ...(claims.fingerprint ? { f: claims.fingerprint } : {}), ...(claims.oauth ? { o: claims.oauth.key, s: claims.oauth.sealedSecret } : {}), x: now + VALID_MS };
    const payload = Buffer.from(JSON.stringify(short)).toString("base64url");
    return `${payload}.${this.mac(payload)}`;
  }

  /** The claims of a transaction id this controller issued and that has not expired; else undefined. */
  read(transactionId: string | undefined, now = Date.now()): TransactionClaims | undefined {
    const [payload, mac, extra] = transactionId?.split(".") ?? [];
    if (!payload || !mac || extra !== undefined) return undefined;
    const given = Buffer.from(mac, "base64url");
    const expected = Buffer.from(this.mac(payload), "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    const c = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Compact;
    if (!(c.x > now)) return undefined;
    return { resourceId: c.r, typeId: c.t, instanceId: c.i, ...(c.f ? { fingerprint: c.f } : {}), ...(c.o && c.s ? { oauth: { key: c.o, sealedSecret: c.s } } : {}) };
  }

  private mac(text: string): string {
    return createHmac("sha256", this.key).update(text).digest("base64url");
  }
}
