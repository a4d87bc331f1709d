/**
 * Who is calling: a user or account (APS-Token), the vendor's anonymous token, or an
 * application instance (its client certificate or OAuth key; auth/application-caller.ts).
 */
import { ControllerError } from "../support/errors.ts";
import type { StoredResource } from "../store/schema-rows.ts";
import type { TokenIdentity, TokenService } from "./tokens.ts";
import type { RevocationListener } from "./account-revocations.ts";
import { FailedVerificationLimiter } from "./failed-verification-limiter.ts";
import { isUuid } from "../support/uuid.ts";
import type { RequestScope } from "../observability/request-scope.ts";
import { ResourceStatus } from "../../common/core-types.ts";

const MAX_CACHED_TOKENS = 10_000;
/** Status of a suspended resource (docs/aps/lifecycle.md, "Suspendable types"); an account in it speaks for no one. */
const DISABLED = ResourceStatus.disabled;

/**
 * The caller of one request. An application instance calls as itself (`kind: "application"`:
 * its rights come from the resources it serves, see auth/roles.ts) or, with `APS-Resource-ID`,
 * as the customer that owns one of its resources (`kind: "user"` with that account and
 * `instanceId` set: the customer's roles, docs/aps/security.md, "Applications as callers").
 */
export interface Caller {
  readonly kind: "user" | "application";
  /** Absent for the anonymous token and for an application acting as itself. */
  readonly accountId?: string;
  readonly userId?: string;
  /** The account's path in the account tree (see schema.ts `owner_path`). */
  readonly accountPath?: string;
  /** The calling application instance, when the call came with application credentials (sent on as APS-Application-ID). */
  readonly instanceId?: string;
  /**
   * The request this caller makes (its id and logger), set per request by the app on a copy:
   * resolved callers are cached across requests and never carry it.
   */
  readonly request?: RequestScope;
}

/** A verified token's caller and, when the token has one, its expiry (seconds since the epoch). */
interface VerifiedCaller {
  readonly caller: Caller;
  readonly expires?: number;
}

/**
 * Resolves `APS-Token` into a caller. What it learns (verified tokens, account paths) it keeps in
 * memory, so a request of a known account costs no database round trip; the account revocation
 * feed (account-revocations.ts) tells it which accounts were deleted or changed status, and it
 * forgets them and every account below them, so their tokens are checked against the database
 * again (and refused) within a poll interval. Failed verifications are limited per source
 * address (failed-verification-limiter.ts).
 */
export class CallerResolver implements RevocationListener {
  private readonly paths = new Map<string, string>();
  /** Verified tokens, for a minute at most: checking a signature costs more than the rest of a GET. */
  private readonly verified = new Map<string, { caller: Caller; until: number }>();
  /**
   * Counts revocations. A lookup started before one may have read an account that is gone by
   * now, so it caches nothing (see {@link remember}).
   */
  private generation = 0;

  constructor(
    private readonly tokens: TokenService,
    /** Reads accounts by id (the resource store; only this is needed, so no import cycle with it). */
    private readonly store: { get(id: string): Promise<StoredResource | undefined> },
    private readonly failures = new FailedVerificationLimiter(),
    /** False until the revocation feed knows where it stands: until then nothing is cached. */
    private readonly following: () => boolean = () => true,
  ) {}

  /** The caller `token` speaks for; `source` (the remote address) is what failures are counted against. */
  async resolve(token: string | undefined, source = "unknown"): Promise<Caller> {
    if (!token)
      throw new ControllerError(
        401,
        "The APS-Token header is missing; every call needs one (mint one with: aps-gen token --account <id>).",
      );
    const now = Date.now();
    const cached = this.verified.get(token);
    if (cached && cached.until > now) return cached.caller;
    const wait = this.failures.retryAfter(source, now);
    if (wait > 0)
      throw new ControllerError(
        429,
        `Too many APS-Tokens from ${source} failed verification; try again in ${wait} s.`,
        undefined,
        { "Retry-After": String(wait) },
      );
    const generation = this.generation;
    let caller: VerifiedCaller;
    try {
      caller = await this.verify(token);
    } catch (error) {
      if (error instanceof ControllerError && error.status === 401) this.failures.fail(source);
      throw error;
    }
    if (this.remember(generation)) {
      if (this.verified.size >= MAX_CACHED_TOKENS) this.verified.clear();
      this.verified.set(token, {
        caller: caller.caller,
        until: Math.min(now + 60_000, caller.expires ? caller.expires * 1000 : Infinity),
      });
    }
    return caller.caller;
  }

  /** Forgets the accounts, the accounts below them and their verified tokens (the revocation feed calls this). */
  revoke(accountIds: readonly string[]): void {
    this.generation++;
    const segments = accountIds.map((id) => `/${id}/`);
    const affected = (path: string | undefined) => path !== undefined && segments.some((s) => path.includes(s));
    for (const [id, path] of this.paths) if (affected(path)) this.paths.delete(id);
    for (const [token, entry] of this.verified) if (affected(entry.caller.accountPath)) this.verified.delete(token);
  }

  /** Forgets every account (the feed lost track of what changed). */
  revokeAll(): void {
    this.generation++;
    this.paths.clear();
    this.verified.clear();
  }

  /** True when what a lookup that began at `generation` learnt may be cached. */
  private remember(generation: number): boolean {
    return generation === this.generation && this.following();
  }

  private async verify(token: string): Promise<VerifiedCaller> {
    let identity: TokenIdentity;
    try {
      identity = await this.tokens.verify(token);
    } catch {
      throw new ControllerError(401, "The APS-Token is not valid: its signature, issuer or expiry does not check out.");
    }
    const expires = identity.expires ? { expires: identity.expires } : {};
    if (!identity.accountId)
      return { caller: { kind: "user", ...(identity.userId ? { userId: identity.userId } : {}) }, ...expires };
    const accountPath = await this.accountPath(identity.accountId);
    return {
      caller: {
        kind: "user",
        accountId: identity.accountId,
        accountPath,
        ...(identity.userId ? { userId: identity.userId } : {}),
      },
      ...expires,
    };
  }

  /**
   * The account's path; 401 when the account does not exist or it, or an account above it, is
   * disabled (a suspended reseller's customers are suspended with it).
   */
  private async accountPath(accountId: string): Promise<string> {
    const known = this.paths.get(accountId);
    if (known) return known;
    const generation = this.generation;
    const row = isUuid(accountId) ? await this.store.get(accountId) : undefined;
    if (!row || row.ownerAccount !== row.id)
      throw new ControllerError(401, `The APS-Token names account ${accountId}, which does not exist.`);
    for (const id of row.ownerPath.split("/").filter(Boolean)) {
      const account = id === accountId ? row : await this.store.get(id);
      if (account?.status === DISABLED)
        throw new ControllerError(
          401,
          `The APS-Token names account ${accountId}, ${id === accountId ? "which is" : `whose account ${id} is`} disabled.`,
        );
    }
    if (this.remember(generation)) this.paths.set(accountId, row.ownerPath);
    return row.ownerPath;
  }
}

/** 403 unless the caller speaks for the provider's account (the root of the account tree). */
export function requireProviderAdmin(caller: Caller, what: string): void {
  if (!caller.accountId || caller.accountPath !== `/${caller.accountId}/`)
    throw new ControllerError(403, `Only the provider's administrators may ${what}.`);
}
