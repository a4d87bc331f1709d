/**
 * The `APS-Transaction-ID` of a provisioning call, and of an install, is a random UUID: an
 * identifier, as connectors treat the header (they log it, echo it in their replies and copy it
 * onto their own calls, e.g. the Connect extension's `cbcext/services/hub/utils.py:71-83` and
 * `cbcext/services/client/oaclient/__init__.py:155-156`). What it stands for is a row of
 * `transactions` (schema.ts), written before the call, that any controller process reads when the
 * application calls back with the id while the resource does not exist yet (it subscribes for
 * the resource it is creating, or acts for it with `APS-Resource-ID`): the resource, its type,
 * the instance, and during an install the fingerprint of the instance's new certificate or its
 * OAuth key with the secret sealed. Processes keep nothing of calls in flight that another
 * process would need: the row is in the database they share.
 *
 * An id that is not a UUID, unknown, or past its validity reads as nothing. Reading is a
 * primary-key lookup, and a process remembers the rows it wrote or read until they expire, so
 * the sub-requests of one provisioning that reach the same process cost no statement.
 */
import { randomUUID } from "node:crypto";
import { executePrepared, rowsOf, type Db } from "../store/open-database.ts";
import { isUuid } from "../support/uuid.ts";

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
   * signed calls before the instance is stored.
   */
  readonly oauth?: { readonly key: string; readonly sealedSecret: Uint8Array };
}

/** How long a transaction id is honoured: longer than any synchronous call to an endpoint lasts. */
export const DEFAULT_TRANSACTION_VALID_MS = 10 * 60_000;

/** How many transactions a process remembers at most (the oldest go first). */
const REMEMBERED = 1000;

const INSERT = `insert into transactions (id, resource_id, type_id, instance_id, fingerprint, oauth_key, oauth_secret, expires)
  values ($1::uuid, $2::uuid, $3, $4::uuid, $5, $6, $7::bytea, now() + $8 * interval '1 millisecond')`;
// What is left of its validity, by the database's clock: processes' clocks may differ from it and from each other.
const READ = `select resource_id, type_id, instance_id, fingerprint, oauth_key, oauth_secret, (extract(epoch from expires - now()) * 1000)::float8 as left_ms
  from transactions where id = $1::uuid and expires > now()`;

interface Row {
  resource_id: string;
  type_id: string;
  instance_id: string;
  fingerprint: string | null;
  oauth_key: string | null;
  oauth_secret: Uint8Array | null;
  left_ms: number;
}

/** Transactions over one database. Call it outside a `store.transaction` (its statements run on the pool). */
export class TransactionStore {
  private readonly remembered = new Map<string, { claims: TransactionClaims; until: number }>();

  constructor(
    private readonly db: Db,
    readonly validMs: number = DEFAULT_TRANSACTION_VALID_MS,
  ) {}

  /** Commits a transaction about `claims` and gives its id (`id` when given, else a new UUID). */
  async issue(claims: TransactionClaims, id: string = randomUUID()): Promise<string> {
    // Taken before the insert, so this process forgets the row no later than the database.
    const until = Date.now() + this.validMs;
    const oauth = claims.oauth;
    await executePrepared(this.db, {
      text: INSERT,
      values: [
        id,
        claims.resourceId,
        claims.typeId,
        claims.instanceId,
        claims.fingerprint ?? null,
        oauth?.key ?? null,
        oauth ? Buffer.from(oauth.sealedSecret) : null,
        this.validMs,
      ],
    });
    this.remember(id, claims, until);
    return id;
  }

  /**
   * A provisioning's transaction, committed by the statement that records its intent (one commit
   * before the call: intents/intent-store.ts) with this store's validity (`validMs`): remembered
   * here as if issued here.
   */
  recordedWithIntent(id: string, claims: TransactionClaims, recordedAt: number): void {
    this.remember(id, claims, recordedAt + this.validMs);
  }

  /** The claims of a transaction id this controller issued and that has not expired; else undefined. */
  async read(transactionId: string | undefined): Promise<TransactionClaims | undefined> {
    const id = transactionId?.trim().toLowerCase();
    if (!id || !isUuid(id)) return undefined;
    const known = this.remembered.get(id);
    if (known) {
      if (known.until > Date.now()) return known.claims;
      this.remembered.delete(id);
    }
    const [row] = rowsOf<Row>(await executePrepared(this.db, { text: READ, values: [id] }));
    if (!row) return undefined;
    const claims: TransactionClaims = {
      resourceId: row.resource_id,
      typeId: row.type_id,
      instanceId: row.instance_id,
      ...(row.fingerprint ? { fingerprint: row.fingerprint } : {}),
      ...(row.oauth_key && row.oauth_secret
        ? { oauth: { key: row.oauth_key, sealedSecret: new Uint8Array(row.oauth_secret) } }
        : {}),
    };
    this.remember(id, claims, Date.now() + Number(row.left_ms));
    return claims;
  }

  /** Deletes the transactions past their validity (a background pass); how many went. */
  async prune(): Promise<number> {
    const [row] = rowsOf<{ n: number }>(
      await executePrepared(this.db, {
        text: "with gone as (delete from transactions where expires <= now() returning 1) select count(*)::int as n from gone",
        values: [],
      }),
    );
    return Number(row?.n ?? 0);
  }

  private remember(id: string, claims: TransactionClaims, until: number): void {
    this.remembered.delete(id);
    if (this.remembered.size >= REMEMBERED) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(id, { claims, until });
  }
}
