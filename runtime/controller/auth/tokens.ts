/**
 * `APS-Token` (docs/aps/security.md, "Tokens"): a signed JWT naming the account and, for a user,
 * the user. A token naming neither is the vendor's anonymous token (public role only). The
 * controller signs its own tokens with a key from the data directory (HS256); tokens of an external
 * issuer are accepted through its JWKS when configured.
 */
import { createRemoteJWKSet, jwtVerify, SignJWT, type JWTPayload } from "jose";

/** Who a token speaks for. */
export interface TokenIdentity {
  readonly accountId?: string;
  readonly userId?: string;
  /** Expiry (seconds since the epoch) when the token has one. */
  readonly expires?: number;
}

/** Claims of aps-gen tokens: `acc` is the account, `sub` the user. */
interface ApsClaims extends JWTPayload {
  acc?: string;
}

const ISSUER = "aps-gen";

/** An external token issuer trusted through its JWKS. */
export interface ExternalIssuer {
  readonly issuer: string;
  readonly jwksUrl: string;
}

/** Mints and verifies APS tokens. */
export class TokenService {
  private readonly remote?: { issuer: string; keys: ReturnType<typeof createRemoteJWKSet> };

  constructor(
    private readonly key: Uint8Array,
    external?: ExternalIssuer,
  ) {
    if (external) this.remote = { issuer: external.issuer, keys: createRemoteJWKSet(new URL(external.jwksUrl)) };
  }

  /** A token for an account (and user); `expiresIn` like "12h", none for a long-lived token. */
  async mint(identity: TokenIdentity, expiresIn?: string): Promise<string> {
    let jwt = new SignJWT({ ...(identity.accountId ? { acc: identity.accountId } : {}) })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setIssuer(ISSUER)
      .setIssuedAt();
    if (identity.userId) jwt = jwt.setSubject(identity.userId);
    if (expiresIn) jwt = jwt.setExpirationTime(expiresIn);
    return jwt.sign(this.key);
  }

  /** The identity a token carries; throws when it is not valid (bad signature, expired, unknown issuer). */
  async verify(token: string): Promise<TokenIdentity> {
    const local = await jwtVerify<ApsClaims>(token, this.key, { issuer: ISSUER, algorithms: ["HS256"] }).catch(
      (error: unknown) => {
        if (!this.remote) throw error;
        return undefined;
      },
    );
    const result = local ?? (await jwtVerify<ApsClaims>(token, this.remote!.keys, { issuer: this.remote!.issuer }));
    const { acc, sub, exp } = result.payload;
    return {
      ...(typeof acc === "string" ? { accountId: acc } : {}),
      ...(typeof sub === "string" ? { userId: sub } : {}),
      ...(typeof exp === "number" ? { expires: exp } : {}),
    };
  }
}
