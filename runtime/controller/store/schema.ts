/**
 * The controller's tables (Drizzle). One schema for PGlite and PostgreSQL; migrations are
 * generated from it with drizzle-kit into ./migrations and applied on start.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  customType,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { exactJsonb } from "./exact-json.ts";

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });

/**
 * Every resource: the meta columns of its `aps` section and its properties as jsonb. Encrypted
 * properties never enter `body`: they live sealed in `secrets` (AES-256-GCM, see encryption.ts).
 */
export const resources = pgTable(
  "resources",
  {
    id: uuid("id").primaryKey(),
    typeId: text("type_id").notNull(),
    status: text("status").notNull(),
    revision: integer("revision").notNull(),
    created: timestamp("created", { withTimezone: true, mode: "string" }).notNull(),
    modified: timestamp("modified", { withTimezone: true, mode: "string" }).notNull(),
    /** The account whose resource this is; an account owns itself. */
    ownerAccount: uuid("owner_account"),
    /**
     * Materialised path of the owning account in the account tree (`/<root>/<reseller>/<own>/`):
     * the caller is admin of a resource when its own account's path is a proper prefix of this.
     */
    ownerPath: text("owner_path").notNull(),
    subscription: uuid("subscription"),
    packageId: uuid("package_id"),
    /** The application instance that serves the resource (application types only). */
    instanceId: uuid("instance_id"),
    body: exactJsonb("body").notNull(),
    /** Sealed JSON object of the encrypted properties, or null when there are none. */
    secrets: bytea("secrets"),
    /** Position in creation order: the stable default sort of lists. */
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity(),
  },
  (t) => [
    index("resources_type_idx").on(t.typeId),
    index("resources_owner_idx").on(t.ownerAccount),
    index("resources_owner_path_idx").using("btree", sql`${t.ownerPath} text_pattern_ops`),
    index("resources_seq_idx").on(t.seq),
    index("resources_body_idx").using("gin", sql`${t.body} jsonb_path_ops`),
    // What an application instance reaches (auth/roles.ts): its own resources, and the accounts they belong to (migration 0008).
    index("resources_instance_owner_idx").on(t.instanceId, t.ownerAccount),
    index("resources_subscription_idx").on(t.subscription, t.instanceId).where(sql`${t.subscription} is not null`),
  ],
);

/** Links of relations: `source.relation -> target`. */
export const links = pgTable(
  "links",
  {
    sourceId: uuid("source_id")
      .notNull()
      .references(() => resources.id, { onDelete: "cascade" }),
    relation: text("relation").notNull(),
    targetId: uuid("target_id")
      .notNull()
      .references(() => resources.id, { onDelete: "cascade" }),
    /** The relation is singular: at most one link per (source, relation), by `links_singular_idx` (migration 0007). */
    singular: boolean("singular").notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.sourceId, t.relation, t.targetId] }),
    index("links_target_idx").on(t.targetId),
    uniqueIndex("links_singular_idx").on(t.sourceId, t.relation).where(sql`${t.singular}`),
  ],
);

/**
 * Packages imported into the controller and what they declare. A row is written last, once its
 * archive is whole in {@link packageArchiveParts}: a row means the package is there.
 */
export const packages = pgTable("packages", {
  id: uuid("id").primaryKey(),
  appId: text("app_id").notNull(),
  name: text("name").notNull(),
  version: text("version").notNull(),
  release: text("release").notNull(),
  imported: timestamp("imported", { withTimezone: true, mode: "string" }).notNull(),
});

/**
 * Each package's archive as received, in parts of at most 64 KiB (`part` 0, 1, ...). The embedded
 * database runs on the serving thread: one statement with a 2 MB archive held it for 140–250 ms,
 * a statement per part holds it a few milliseconds at a time (packages/archive-store.ts).
 */
export const packageArchiveParts = pgTable(
  "package_archive_parts",
  {
    packageId: uuid("package_id").notNull(),
    part: integer("part").notNull(),
    bytes: bytea("bytes").notNull(),
  },
  (t) => [primaryKey({ columns: [t.packageId, t.part] })],
);

/** Navigation trees posted by control panels (docs/aps/rest-api.md, "Collections"). */
export const navigation = pgTable("navigation", {
  id: uuid("id").primaryKey(),
  body: exactJsonb("body").notNull(),
  created: timestamp("created", { withTimezone: true, mode: "string" }).notNull(),
});

/**
 * Application instances (issue 5): a package installed at an endpoint. The controller's CA
 * issued the instance certificate; its SHA-256 fingerprint identifies the instance when it calls.
 */
export const instances = pgTable("instances", {
  id: uuid("id").primaryKey(),
  packageId: uuid("package_id").notNull(),
  endpoint: text("endpoint").notNull(),
  /** PEM of the CA that signed the endpoint's HTTPS certificate, when it is not a public one. */
  endpointCa: text("endpoint_ca"),
  /** The APP-META.xml service of the application root type. */
  rootService: text("root_service").notNull(),
  rootResource: uuid("root_resource"),
  certFingerprint: text("cert_fingerprint").notNull().unique(),
  /** When the instance's certificate expires (migration 0016); null for instances installed before it was kept. */
  certNotAfter: timestamp("cert_not_after", { withTimezone: true, mode: "string" }),
  status: text("status").notNull(),
  created: timestamp("created", { withTimezone: true, mode: "string" }).notNull(),
  /** OAuth 1.0a consumer key of an instance installed with `auth.oauth` (migration 0009); null for certificate-only instances. */
  oauthKey: text("oauth_key").unique(),
  /** Its consumer secret, sealed with the instance id as context (encryption.ts); never in clear text at rest. */
  oauthSecret: bytea("oauth_secret"),
});

/**
 * OAuth 1.0a nonces seen (migration 0009), so a signed request is taken once across every
 * controller process sharing the database. A row is needed only while its timestamp is still
 * accepted; `expires` marks that, and expired rows are deleted now and then (auth/oauth-nonces.ts).
 */
export const oauthNonces = pgTable(
  "oauth_nonces",
  {
    consumerKey: text("consumer_key").notNull(),
    nonce: text("nonce").notNull(),
    expires: timestamp("expires", { withTimezone: true, mode: "string" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.consumerKey, t.nonce] }), index("oauth_nonces_expires_idx").on(t.expires)],
);

/**
 * Asynchronous operations (docs/aps/lifecycle.md, "Asynchronous operations"): after a 202 the
 * controller repeats the same call with `APS-Request-Phase: async` until the application finishes
 * it. Rows are claimed with `FOR UPDATE SKIP LOCKED` and a lease, so one task runs on one
 * controller process at a time and a process that dies mid-call leaves it to another when the lease
 * ends.
 */
export const tasks = pgTable(
  "tasks",
  {
    id: uuid("id").primaryKey(),
    resourceId: uuid("resource_id").notNull(),
    /** provision, configure or unprovision. */
    operation: text("operation").notNull(),
    instanceId: uuid("instance_id").notNull(),
    method: text("method").notNull(),
    path: text("path").notNull(),
    /** The request body as exact JSON text, when the call has one. */
    body: text("body"),
    transactionId: text("transaction_id").notNull(),
    identityId: text("identity_id"),
    /** `APS-Info` of the last 202. */
    info: text("info"),
    attempts: integer("attempts").notNull(),
    retryAt: timestamp("retry_at", { withTimezone: true, mode: "string" }).notNull(),
    lockedUntil: timestamp("locked_until", { withTimezone: true, mode: "string" }),
    /** pending, done or failed. */
    state: text("state").notNull(),
    lastError: text("last_error"),
    created: timestamp("created", { withTimezone: true, mode: "string" }).notNull(),
  },
  (t) => [index("tasks_due_idx").on(t.state, t.retryAt)],
);

/**
 * Event subscriptions (docs/aps/events.md, "Subscribing"): the subscriber (an application resource)
 * wants `event` of every resource of `source_type` (or a subtype), or of the one resource
 * `source_id`, delivered to its operation `handler`. They go with the subscriber.
 */
export const subscriptions = pgTable(
  "subscriptions",
  {
    id: uuid("id").primaryKey(),
    subscriberId: uuid("subscriber_id")
      .notNull()
      .references(() => resources.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    sourceType: text("source_type"),
    sourceId: uuid("source_id"),
    /** For linked/unlinked: only links of this relation. */
    relation: text("relation"),
    handler: text("handler").notNull(),
    created: timestamp("created", { withTimezone: true, mode: "string" }).notNull(),
  },
  (t) => [
    index("subscriptions_type_idx").on(t.event, t.sourceType),
    index("subscriptions_source_idx").on(t.sourceId),
    index("subscriptions_subscriber_idx").on(t.subscriberId),
  ],
);

/**
 * Subscriptions an application made while its subscriber was being provisioned (docs/aps/events.md,
 * "Subscribing", with the `APS-Transaction-ID` of that call), by whichever controller process it
 * reached. The process that stores the subscriber moves them into `subscriptions` in the same
 * statement; rows of a provisioning that failed are removed with it, or swept after an hour.
 */
export const stagedSubscriptions = pgTable(
  "staged_subscriptions",
  {
    id: uuid("id").primaryKey(),
    /** The resource being provisioned: new, so its id alone names the provisioning. */
    subscriberId: uuid("subscriber_id").notNull(),
    event: text("event").notNull(),
    sourceType: text("source_type"),
    sourceId: uuid("source_id"),
    relation: text("relation"),
    handler: text("handler").notNull(),
    created: timestamp("created", { withTimezone: true, mode: "string" }).notNull(),
  },
  (t) => [index("staged_subscriptions_subscriber_idx").on(t.subscriberId)],
);

/**
 * The outbox of notifications (docs/aps/events.md, "Delivery"): one row per event and subscription,
 * written in the transaction of the change that raised the event. `serial` is given later, in
 * commit order, by one sequencer at a time (see events/notification-store.ts), so serials grow
 * strictly across every controller process and a later serial is never seen before an earlier one.
 */
export const notifications = pgTable(
  "notifications",
  {
    /** Insertion order (not commit order). */
    id: bigint("id", { mode: "number" }).generatedAlwaysAsIdentity().primaryKey(),
    /** The event this row notifies of: rows of one event share it and get the same serial. */
    eventKey: uuid("event_key").notNull(),
    serial: bigint("serial", { mode: "number" }),
    subscriptionId: uuid("subscription_id")
      .notNull()
      .references(() => subscriptions.id, { onDelete: "cascade" }),
    subscriberId: uuid("subscriber_id").notNull(),
    event: text("event").notNull(),
    time: timestamp("time", { withTimezone: true, mode: "string" }).notNull(),
    sourceId: uuid("source_id").notNull(),
    sourceType: text("source_type").notNull(),
    /** linked/unlinked: the relation and the other end of the link. */
    relation: text("relation"),
    targetId: uuid("target_id"),
    /** pending, or dead (given up; an admin may replay it). Delivered rows are deleted. */
    state: text("state").notNull(),
    attempts: integer("attempts").notNull(),
    nextAt: timestamp("next_at", { withTimezone: true, mode: "string" }).notNull(),
    lockedUntil: timestamp("locked_until", { withTimezone: true, mode: "string" }),
    lastError: text("last_error"),
  },
  (t) => [
    index("notifications_unsequenced_idx").on(t.id).where(sql`${t.serial} is null`),
    index("notifications_pending_idx").on(t.subscriberId, t.serial).where(sql`${t.state} = 'pending'`),
    index("notifications_due_idx").on(t.serial).where(sql`${t.state} = 'pending'`),
  ],
);

/** The last serial given to an event; its one row is also the sequencer's lock. */
export const eventClock = pgTable("event_clock", {
  id: integer("id").primaryKey(),
  lastSerial: bigint("last_serial", { mode: "number" }).notNull(),
});

/**
 * Account deletes and status changes, in commit order (migration 0006: triggers on `resources`
 * write them in the transaction of the change). Controller processes follow `serial` to drop
 * what they cached about those accounts; old rows are pruned.
 */
export const accountRevocations = pgTable(
  "account_revocations",
  {
    serial: bigint("serial", { mode: "number" }).primaryKey(),
    accountId: uuid("account_id").notNull(),
    /** `deleted`, or the account's new status. */
    reason: text("reason").notNull(),
    at: timestamp("at", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
  },
  (t) => [index("account_revocations_at_idx").on(t.at)],
);

/** The last serial given to an account revocation; its one row orders them (see the trigger). */
export const revocationClock = pgTable("revocation_clock", {
  id: integer("id").primaryKey(),
  lastSerial: bigint("last_serial", { mode: "number" }).notNull(),
});

/**
 * Who is configuring (or unprovisioning) a resource (migration 0007): one at a time across
 * processes, with a lease instead of a transaction held open over the application's call.
 */
export const resourceClaims = pgTable("resource_claims", {
  resourceId: uuid("resource_id")
    .primaryKey()
    .references(() => resources.id, { onDelete: "cascade" }),
  holder: uuid("holder").notNull(),
  operation: text("operation").notNull(),
  until: timestamp("until", { withTimezone: true, mode: "string" }).notNull(),
});

/**
 * Provisionings sent to an application and not yet stored (migration 0007): written before the
 * call, removed by the statement that stores the resource; leftovers past their lease are undone
 * at the application (intents/intent-reconciler.ts).
 */
export const provisioningIntents = pgTable(
  "provisioning_intents",
  {
    resourceId: uuid("resource_id").primaryKey(),
    typeId: text("type_id").notNull(),
    instanceId: uuid("instance_id").notNull(),
    transactionId: text("transaction_id").notNull(),
    operation: text("operation").notNull(),
    created: timestamp("created", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
    leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "string" }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    /** What the application may read while the call lasts (intents/intent-store.ts `reaches`). */
    reaches: uuid("reaches").array().notNull().default(sql`'{}'::uuid[]`),
  },
  (t) => [
    index("provisioning_intents_due_idx").on(t.leaseUntil),
    index("provisioning_intents_instance_idx").on(t.instanceId),
  ],
);

/**
 * What the `APS-Transaction-ID` of a provisioning or an install stands for (migration 0014,
 * forward/transaction-store.ts): the application sends the id back while the resource (or the
 * instance) is not stored yet, and whichever process it reaches reads this row by its key.
 * Written before the call; a row past `expires` reads as unknown, and a background pass deletes it.
 */
export const transactions = pgTable(
  "transactions",
  {
    /** The `APS-Transaction-ID`: a random UUID. */
    id: uuid("id").primaryKey(),
    /** The resource the call provisions (during an install: the application root). */
    resourceId: uuid("resource_id").notNull(),
    typeId: text("type_id").notNull(),
    instanceId: uuid("instance_id").notNull(),
    /** During an install: the SHA-256 fingerprint of the instance's new certificate. */
    fingerprint: text("fingerprint"),
    /** During an install with OAuth: the instance's consumer key, and its secret sealed with the instance id as context (encryption.ts). */
    oauthKey: text("oauth_key"),
    oauthSecret: bytea("oauth_secret"),
    expires: timestamp("expires", { withTimezone: true, mode: "string" }).notNull(),
  },
  (t) => [index("transactions_expires_idx").on(t.expires)],
);

/**
 * Notifications posted to the platform's notification manager (routes/platform-notifications.ts),
 * kept so that the accounts they address, and the application that sent them, can read them back.
 * `recipient_path` is the owner path of the account addressed (directly, or as the account of the
 * user addressed): who administers that account sees them, as with resources.
 */
export const platformNotifications = pgTable(
  "platform_notifications",
  {
    id: uuid("id").primaryKey(),
    /** Order of recording: lists are sorted by it. */
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity(),
    time: timestamp("time", { withTimezone: true, mode: "string" }).notNull(),
    /** The notification as sent (status, message, details, accountId, userId, link, initiatorId). */
    body: exactJsonb("body").notNull(),
    recipientAccount: uuid("recipient_account"),
    recipientPath: text("recipient_path"),
    /** Who posted it: an application instance, or a user's account. */
    senderInstance: uuid("sender_instance"),
    senderAccount: uuid("sender_account"),
  },
  (t) => [
    index("platform_notifications_seq_idx").on(t.seq),
    index("platform_notifications_recipient_idx").using("btree", sql`${t.recipientPath} text_pattern_ops`),
    index("platform_notifications_sender_idx").on(t.senderInstance),
  ],
);

/**
 * Instance upgrades under way (migration 0013): the instance and its resources already carry the
 * new package while the application runs its upgrade call. Written in the transaction that
 * migrates them, with the old subscription source types; removed by the one that ends the upgrade
 * (instances/upgrade-store.ts). A row left by a process that died mid-call is rolled back before
 * the instance is upgraded again.
 */
export const instanceUpgrades = pgTable("instance_upgrades", {
  instanceId: uuid("instance_id").primaryKey(),
  fromPackage: uuid("from_package").notNull(),
  toPackage: uuid("to_package").notNull(),
  transactionId: text("transaction_id").notNull(),
  leaseUntil: timestamp("lease_until", { withTimezone: true, mode: "string" }).notNull(),
  /** JSON `[{id, sourceType}]`: subscriptions of the instance's resources whose source type the upgrade changed, as they were. */
  subscriptions: text("subscriptions").notNull(),
  created: timestamp("created", { withTimezone: true, mode: "string" }).notNull(),
});

/** The instance's resources as they were before an upgrade (migration 0013): what a rollback puts back, column for column. */
export const upgradeSnapshots = pgTable(
  "upgrade_snapshots",
  {
    instanceId: uuid("instance_id")
      .notNull()
      .references(() => instanceUpgrades.instanceId, { onDelete: "cascade" }),
    resourceId: uuid("resource_id").notNull(),
    typeId: text("type_id").notNull(),
    packageId: uuid("package_id"),
    status: text("status").notNull(),
    revision: integer("revision").notNull(),
    modified: timestamp("modified", { withTimezone: true, mode: "string" }).notNull(),
    body: exactJsonb("body").notNull(),
    secrets: bytea("secrets"),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.resourceId] })],
);

/**
 * The keys every controller of a deployment shares (migration 0015, deployment/shared-keys.ts):
 * the token key, the encryption key of encrypted properties, the CA and the controller's client
 * certificate, one row each, sealed under the deployment key the operator gives every node
 * (deployment/deployment-key.ts). Never in clear: a database dump without that key opens none.
 * Written once, by the first controller started with a deployment key, in one statement.
 */
export const deploymentSecrets = pgTable("deployment_secrets", {
  /** Which secret: `token-key`, `encryption-key`, `ca-certificate`, `ca-private-key`, ... */
  name: text("name").primaryKey(),
  /** The secret sealed with AES-256-GCM under a key derived from the deployment key and this name. */
  sealed: bytea("sealed").notNull(),
  created: timestamp("created", { withTimezone: true, mode: "string" }).notNull().defaultNow(),
});
