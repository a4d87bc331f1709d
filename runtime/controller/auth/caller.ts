/**
 * Who is calling: a user or account (APS-Token), the vendor's anonymous token, or, from the
 * application issue on, an application instance (client certificate).
 */
import { ApsError } from "../errors.ts";
import type { ResourceStore } from "../store/resource-store.ts";
import type { TokenService } from "./tokens.ts";
import { isUuid } from "../uuid.ts";

const MAX_CACHED_TOKENS = 10_000;

/** The caller of one request. */
export interface Caller {
  readonly kind: "user";
  /** Absent for the anonymous token: such a caller holds only the public role. */
  readonly accountId?: string;
  readonly userId?: string;
  /** The account's path in the account tree (see schema.ts `owner_path`). */
  readonly accountPath?: string;
}

/**
 * Resolves `APS-Token` into a caller. Account paths never change, so they are cached; an
 * account created on another controller instance is read from the database on first use.
 */
export class CallerResolver {
  private readonly paths = new Map<string, string>();
  /** Verified tokens, for a minute at most: checking a signature costs more than the rest of a GET. */
  private readonly verified = new Map<string, { caller: Caller; until: number }>();

  constructor(
    private readonly tokens: TokenService,
    private readonly store: ResourceStore,
  ) {}

  async resolve(token: string | undefined): Promise<Caller> {
    if (!token) throw new ApsError(401, "The APS-Token header is missing; every call needs one (mint one with: aps-gen token --account <id>).");
    const now = Date.now();
    const cached = this.verified.get(token);
    if (cached && cached.until > now) return cached.caller;
    const caller = await this.verify(token);
    if (this.verified.size >= MAX_CACHED_TOKENS) this.verified.clear();
    this.verified.set(token, { caller: caller.caller, until: Math.min(now + 60_000, caller.expires ? caller.expires * 1000 : Infinity) });
    return caller.caller;
  }

  private async verify(token: string): Promise<{ caller: Caller; expires?: number }> {
    let identity;
    try {
      identity = await this.tokens.verify(token);
    } catch {
      throw new ApsError(401, "The APS-Token is not valid: its signature, issuer or expiry does not check out.");
    }
    const expires = identity.expires ? { expires: identity.expires } : {};
    if (!identity.accountId) return { caller: { kind: "user", ...(identity.userId ? { userId: identity.userId } : {}) }, ...expires };
    const accountPath = await this.accountPath(identity.accountId);
    if (!accountPath) throw new ApsError(401, `The APS-Token names account ${identity.accountId}, which does not exist.`);
    return { caller: { kind: "user", accountId: identity.accountId, accountPath, ...(identity.userId ? { userId: identity.userId } : {}) }, ...expires };
  }

  private async accountPath(accountId: string): Promise<string | undefined> {
    const known = this.paths.get(accountId);
    if (known) return known;
    if (!isUuid(accountId)) return undefined;
    const row = await this.store.get(accountId);
    if (!row || row.ownerAccount !== row.id) return undefined;
    this.paths.set(accountId, row.ownerPath);
    return row.ownerPath;
  }
}

/** 403 unless the caller speaks for the provider's account (the root of the account tree). */
export function requireProviderAdmin(caller: Caller, what: string): void {
  if (!caller.accountId || caller.accountPath !== `/${caller.accountId}/`) throw new ApsError(403, `Only the provider's administrators may ${what}.`);
}
