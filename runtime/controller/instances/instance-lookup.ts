/**
 * Which instance is which: the one that serves a type (forwarding), an instance's
 * endpoint by id (events, intents), and the instance a caller's credentials name (certificate
 * fingerprint, OAuth consumer key). Installing, re-issuing and uninstalling
 * (instance-lifecycle.ts) tell it to forget what it remembers.
 */
import { asc, eq, inArray } from "drizzle-orm";
import type { EndpointTarget } from "../forward/endpoint-client.ts";
import type { TransactionStore } from "../forward/transaction-store.ts";
import type { PackageCatalog } from "../packages/catalog.ts";
import type { RegistryType } from "../registry.ts";
import type { Db } from "../store/open-database.ts";
import { instances, resources } from "../store/schema.ts";
import { ControllerError } from "../support/errors.ts";
import type { PropertySealer } from "../support/encryption.ts";
import { isUuid } from "../support/uuid.ts";

/** An instance row. */
export type InstanceRow = typeof instances.$inferSelect;

/** The instance that serves a type, as forwarding needs it. */
export interface ServingInstance {
  readonly target: EndpointTarget;
  readonly packageId: string;
  readonly rootResource?: { readonly id: string; readonly typeId: string };
}

/** How long the serving instance of a type is remembered (another process may install or remove one). */
const SERVING_TTL_MS = 5000;

export class InstanceLookup {
  private readonly serving = new Map<string, { value: ServingInstance; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly catalog: PackageCatalog,
    private readonly sealer: PropertySealer,
    private readonly transactions: TransactionStore,
  ) {}

  /**
   * The instance that serves a type: the first installed instance of its package. Remembered for
   * a few seconds, as every provisioning asks; this process forgets it at once on changes.
   */
  async targetFor(type: RegistryType): Promise<ServingInstance> {
    // Versions of one application may declare the same type (an upgrade keeps unchanged types): any of their instances serves it.
    const declaring = this.catalog.declaring(type.id);
    if (!declaring.length) throw new ControllerError(502, `No package declares ${type.id}.`);
    const known = this.serving.get(type.id);
    if (known && known.until > Date.now()) return known.value;
    const [row] = await this.db
      .select()
      .from(instances)
      .where(
        inArray(
          instances.packageId,
          declaring.map((p) => p.id),
        ),
      )
      .orderBy(asc(instances.created))
      .limit(1);
    if (!row)
      throw new ControllerError(
        502,
        `No instance of ${declaring[0]!.name} is installed, so nothing can serve ${type.name}; install one with POST /aps/2/instances.`,
      );
    const [root] = row.rootResource
      ? await this.db
          .select({ id: resources.id, typeId: resources.typeId })
          .from(resources)
          .where(eq(resources.id, row.rootResource))
      : [];
    const value: ServingInstance = {
      target: this.targetOfRow(row),
      packageId: row.packageId,
      ...(root ? { rootResource: root } : {}),
    };
    this.serving.set(type.id, { value, until: Date.now() + SERVING_TTL_MS });
    return value;
  }

  /** Forgets which instance serves which type: one was installed, upgraded, changed or removed. */
  forget(): void {
    this.serving.clear();
  }

  /** An instance's endpoint by id. */
  async targetOf(instanceId: string): Promise<EndpointTarget | undefined> {
    const row = await this.byId(instanceId);
    return row ? this.targetOfRow(row) : undefined;
  }

  /** How to reach an instance: its endpoint, the CA of its HTTPS certificate, and its OAuth credentials when it has them. */
  targetOfRow(row: InstanceRow): EndpointTarget {
    const oauth =
      row.oauthKey && row.oauthSecret
        ? { oauth: { key: row.oauthKey, secret: this.sealer.openText(row.id, row.oauthSecret) } }
        : {};
    return { instanceId: row.id, endpoint: row.endpoint, endpointCa: row.endpointCa, ...oauth };
  }

  /**
   * The instance whose OAuth consumer key this is, with its secret opened (auth/oauth-verifier.ts).
   * While an instance installs it is not stored yet; its calls made with the install's
   * transaction id are recognised by the key and sealed secret that transaction holds.
   */
  async byOAuthKey(key: string, transactionId?: string): Promise<{ instanceId: string; secret: string } | undefined> {
    const [row] = await this.db.select().from(instances).where(eq(instances.oauthKey, key)).limit(1);
    if (row?.oauthSecret) return { instanceId: row.id, secret: this.sealer.openText(row.id, row.oauthSecret) };
    const claims = await this.transactions.read(transactionId);
    if (claims?.oauth?.key !== key) return undefined;
    return {
      instanceId: claims.instanceId,
      secret: this.sealer.openText(claims.instanceId, claims.oauth.sealedSecret),
    };
  }

  /** An instance by id (also an OAuth-signed caller, auth/oauth-verifier.ts); none for what is not a UUID. */
  async byId(id: string): Promise<InstanceRow | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await this.db.select().from(instances).where(eq(instances.id, id)).limit(1);
    return row;
  }

  /** The instance whose certificate has this SHA-256 fingerprint (`AB:CD:...`). */
  async byFingerprint(fingerprint: string): Promise<InstanceRow | undefined> {
    const [row] = await this.db.select().from(instances).where(eq(instances.certFingerprint, fingerprint)).limit(1);
    return row;
  }
}
