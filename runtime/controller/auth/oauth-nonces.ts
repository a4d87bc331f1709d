/**
 * OAuth nonces seen, in the database (table `oauth_nonces`, migration 0009), so a signed request
 * is taken once by all controller processes that share it: the first insert of a consumer key and
 * nonce wins, any later one is a replay. A row is kept only while its request's timestamp would
 * still be accepted; after that the timestamp check refuses the replay by itself, so expired rows
 * are deleted, at most once a minute per process (an index on `expires` makes that a range scan).
 */
import { lt, sql } from "drizzle-orm";
import type { Db } from "../store/open-database.ts";
import { oauthNonces } from "../store/schema.ts";

const PURGE_EVERY_MS = 60_000;

export class OAuthNonces {
  private nextPurge = 0;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Records the nonce; true when it is new for this key, false when it was seen before and has not
   * expired. An expired row left over (not purged yet) counts as not seen.
   */
  async take(consumerKey: string, nonce: string, expiresMs: number): Promise<boolean> {
    await this.purgeNowAndThen();
    const now = new Date(this.now()).toISOString();
    const rows = await this.db
      .insert(oauthNonces)
      .values({ consumerKey, nonce, expires: new Date(expiresMs).toISOString() })
      .onConflictDoUpdate({
        target: [oauthNonces.consumerKey, oauthNonces.nonce],
        set: { expires: sql`excluded.expires` },
        setWhere: lt(oauthNonces.expires, now),
      })
      .returning({ nonce: oauthNonces.nonce });
    return rows.length === 1;
  }

  private async purgeNowAndThen(): Promise<void> {
    const now = this.now();
    if (now < this.nextPurge) return;
    this.nextPurge = now + PURGE_EVERY_MS;
    await this.db.delete(oauthNonces).where(lt(oauthNonces.expires, new Date(now).toISOString()));
  }
}
