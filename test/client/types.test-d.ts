/**
 * Type tests of the generated client SDK (`X`, `XCreate`, `XUpdate`; runtime/client):
 * what compiles and what does not. Vitest's typecheck mode (vitest.config.ts) runs tsc over
 * this file and fails the test whose body holds a type error, including an `@ts-expect-error`
 * whose line compiles, so each directive is an assertion that can fail. Nothing here runs:
 * the calls below are type-checked only and send no request.
 */
import { assertType, describe, expectTypeOf, it } from "vitest";
import * as cloudmailSdk from "../../generated/client/examples/cloudmail/index.gen.ts";
import {
  configureMailbox,
  disableMailbox,
  enableMailbox,
  getMailbox,
  linkMailboxTenant,
  listMailboxDomain,
  listMailboxes,
  listMailboxPages,
  listMailboxTenant,
  listMailboxUser,
  mailboxChangePassword,
  mailboxCheckAvailability,
  mailboxPurgeArchive,
  mailboxQuery,
  mailboxStorageUsage,
  provisionMailbox,
  unlinkMailboxTenant,
  unprovisionMailbox,
} from "../../generated/client/examples/cloudmail/index.gen.ts";
import {
  listTenantEventSubscriptions,
  subscribeTenant,
  tenantExportMailboxes,
  tenantImportMailboxes,
  tenantQuery,
  tenantUsage,
  type TenantEventHandler,
} from "../../generated/client/examples/cloudmail/index.gen.ts";
import {
  domainQuery,
  domainRequiredRecords,
  domainVerifyDns,
} from "../../generated/client/examples/cloudmail/index.gen.ts";
import { snapshotDownload } from "../../generated/client/examples/vpscloud/index.gen.ts";
import { vpsScreenshot } from "../../generated/client/examples/vpscloud/index.gen.ts";
import type { ServiceUser, Usage, Subscription as CoreSubscription } from "../../generated/types/core/index.gen.ts";
// The parameters of custom operations are declared once, in the package's types module, for the client, the connector and the validators.
import type {
  AvailabilityResult,
  CloudMailErrorInfo,
  CloudMailSettings,
  DnsCheck,
  DnsRecord,
  Domain,
  ImportReport,
  Mailbox,
  MailboxCheckAvailabilityParams,
  MailboxCreate,
  MailboxPlan,
  MailboxPurgeArchiveParams,
  MailboxUpdate,
  PurgeResult,
  Tenant,
  TenantCreate,
  TenantRetentionDays,
  UsageReport,
} from "../../generated/types/examples/cloudmail/index.gen.ts";
import * as sdk from "../../generated/client/index.gen.ts";
import {
  subscriptionListSubscriptionServices as listSubscriptionServices,
  subscriptionServiceListSubscriptionServices as listSubscriptionServicesPage,
} from "../../generated/client/core/index.gen.ts";
import {
  installInstance,
  listTasks,
  type InstallRequest,
  type InstanceInfo,
} from "../../runtime/client/administration.ts";
import { createClient, type ApsClient } from "../../runtime/client/client.ts";
import type { Page } from "../../runtime/client/pages.ts";
import {
  rql,
  type ApsField,
  type ListQuery,
  type RqlFilter,
  type RqlKey,
  type RqlValue,
} from "../../runtime/client/rql.ts";
import type { Subscription } from "../../runtime/client/subscriptions.ts";
import type { ApsLinkRef, Int64 } from "../../runtime/common/types.ts";
import type { OrderCreate } from "../golden/types/golden/index.gen.ts";

declare const client: ApsClient;

describe("RQL builder: keys", () => {
  it("RqlKey<Mailbox> is exactly Mailbox's scalar properties plus aps.id/aps.type/aps.status", () => {
    expectTypeOf<ApsField>().toEqualTypeOf<"aps.id" | "aps.type" | "aps.status">();
    expectTypeOf<RqlKey<Mailbox>>().toEqualTypeOf<
      | "localPart"
      | "address"
      | "displayName"
      | "password"
      | "plan"
      | "quota"
      | "used"
      | "archiveQuota"
      | "maxMessageSize"
      | "spamThreshold"
      | "spamSubjectFilter"
      | "lastLogin"
      | "lastLoginIp"
      | "supportNote"
      | "backendId"
      | ApsField
    >();
    // Tenant: structures (Counter, Usage, Address) and links are not keys; the enum is.
    expectTypeOf<RqlKey<Tenant>>().toEqualTypeOf<"organizationId" | "retentionDays" | "contractStart" | ApsField>();
  });

  it("value types follow the declared property types", () => {
    expectTypeOf<RqlValue<Mailbox, "quota">>().toEqualTypeOf<Int64>();
    expectTypeOf<RqlValue<Mailbox, "plan">>().toEqualTypeOf<MailboxPlan>();
    expectTypeOf<RqlValue<Mailbox, "plan">>().toEqualTypeOf<"basic" | "business" | "enterprise">();
    expectTypeOf<RqlValue<Mailbox, "spamThreshold">>().toEqualTypeOf<number>();
    expectTypeOf<RqlValue<Mailbox, "aps.status">>().toEqualTypeOf<string>();
    expectTypeOf<RqlValue<Tenant, "retentionDays">>().toEqualTypeOf<30 | 90 | 365 | 3650>();
  });

  it("comparisons accept own scalar names and aps fields, and return a filter of that type", () => {
    expectTypeOf(mailboxQuery.eq("quota", 10)).toEqualTypeOf<RqlFilter<Mailbox>>();
    expectTypeOf(mailboxQuery.eq("quota", 10n)).toEqualTypeOf<RqlFilter<Mailbox>>();
    expectTypeOf(mailboxQuery.ne("plan", "business")).toEqualTypeOf<RqlFilter<Mailbox>>();
    expectTypeOf(mailboxQuery.ge("spamThreshold", 5.5)).toEqualTypeOf<RqlFilter<Mailbox>>();
    expectTypeOf(mailboxQuery.eq("aps.status", "aps:ready")).toEqualTypeOf<RqlFilter<Mailbox>>();
    expectTypeOf(mailboxQuery.eq("aps.id", "0b0c")).toEqualTypeOf<RqlFilter<Mailbox>>();
    expectTypeOf(mailboxQuery.eq("aps.type", "http://x/1.0")).toEqualTypeOf<RqlFilter<Mailbox>>();
    expectTypeOf(rql<Mailbox>().lt("used", 1)).toEqualTypeOf<RqlFilter<Mailbox>>();
    expectTypeOf(tenantQuery.eq("retentionDays", 90)).toEqualTypeOf<RqlFilter<Tenant>>();
  });

  it("rejects misspelt, non-scalar and unknown aps names", () => {
    // @ts-expect-error misspelt property
    mailboxQuery.eq("qota", 1);
    // @ts-expect-error a property of another type (Domain.name)
    mailboxQuery.eq("name", "x");
    // @ts-expect-error structure (AutoReply)
    mailboxQuery.eq("autoReply", "x");
    // @ts-expect-error array of strings
    mailboxQuery.eq("aliases", "x");
    // @ts-expect-error array of structures
    mailboxQuery.eq("forwarding", "x");
    // @ts-expect-error free-form object
    mailboxQuery.eq("clientSettings", "x");
    // @ts-expect-error relation (a link, not a scalar)
    mailboxQuery.eq("tenant", "x");
    // @ts-expect-error the aps meta-section itself
    mailboxQuery.eq("aps", "x");
    // @ts-expect-error only aps.id, aps.type and aps.status are filterable meta fields
    mailboxQuery.eq("aps.revision", "1");
    // @ts-expect-error misspelt with rql<T>() too
    rql<Mailbox>().gt("qouta", 1);
    // @ts-expect-error Tenant's structure-typed property (Counter)
    tenantQuery.eq("mailboxCount", 1);
    // @ts-expect-error Tenant's collection relation
    tenantQuery.eq("mailboxes", "x");
  });

  it("rejects values of the wrong type", () => {
    // @ts-expect-error quota is an integer
    mailboxQuery.eq("quota", "ten");
    // @ts-expect-error localPart is a string
    mailboxQuery.eq("localPart", 5);
    // @ts-expect-error plan is an enum: "gold" is not one of its values
    mailboxQuery.eq("plan", "gold");
    // @ts-expect-error aps.id is a string
    mailboxQuery.eq("aps.id", 5);
    // @ts-expect-error retentionDays is an integer enum without 60
    tenantQuery.eq("retentionDays", 60);
    // @ts-expect-error retentionDays is an integer, not its text
    tenantQuery.eq("retentionDays", "90");
  });

  it("in/out take arrays of the value type", () => {
    expectTypeOf(mailboxQuery.in("plan", ["basic", "business"])).toEqualTypeOf<RqlFilter<Mailbox>>();
    expectTypeOf(mailboxQuery.out("quota", [1, 2n])).toEqualTypeOf<RqlFilter<Mailbox>>();
    expectTypeOf(mailboxQuery.in("aps.status", ["aps:ready", "aps:disabled"])).toEqualTypeOf<RqlFilter<Mailbox>>();
    // @ts-expect-error a single value, not an array
    mailboxQuery.in("quota", 1);
    // @ts-expect-error strings where integers are declared
    mailboxQuery.in("quota", ["1", "2"]);
    // @ts-expect-error a value outside the enum
    mailboxQuery.out("plan", ["basic", "gold"]);
    // @ts-expect-error misspelt name
    mailboxQuery.in("plans", ["basic"]);
  });

  it("like takes a scalar name and a text pattern", () => {
    expectTypeOf(mailboxQuery.like("address", "*@example.com")).toEqualTypeOf<RqlFilter<Mailbox>>();
    // @ts-expect-error the pattern is text
    mailboxQuery.like("address", 5);
    // @ts-expect-error misspelt name
    mailboxQuery.like("adress", "a*");
    // @ts-expect-error array property
    mailboxQuery.like("aliases", "a*");
  });
});

describe("RQL builder: combining filters", () => {
  const mailboxFilter = mailboxQuery.eq("quota", 10);
  const tenantFilter = tenantQuery.eq("retentionDays", 90);
  const domainFilter = domainQuery.eq("name", "example.com");

  it("and/or/not of one type's filters stay that type's", () => {
    expectTypeOf(mailboxQuery.and(mailboxFilter, mailboxQuery.like("address", "a*"))).toEqualTypeOf<
      RqlFilter<Mailbox>
    >();
    expectTypeOf(mailboxQuery.or(mailboxFilter, mailboxFilter)).toEqualTypeOf<RqlFilter<Mailbox>>();
    expectTypeOf(mailboxQuery.not(mailboxFilter)).toEqualTypeOf<RqlFilter<Mailbox>>();
    expectTypeOf(mailboxQuery.linkedWith("tenant-1")).toEqualTypeOf<RqlFilter<Mailbox>>();
  });

  it("a filter of another type is rejected, in every direction", () => {
    // @ts-expect-error a Tenant filter inside a Mailbox and()
    mailboxQuery.and(mailboxFilter, tenantFilter);
    // @ts-expect-error a Tenant filter inside a Mailbox or()
    mailboxQuery.or(tenantFilter);
    // @ts-expect-error a Tenant filter inside a Mailbox not()
    mailboxQuery.not(tenantFilter);
    // @ts-expect-error a Mailbox filter inside a Tenant and()
    tenantQuery.and(tenantFilter, mailboxFilter);
    // @ts-expect-error a Domain filter inside a Mailbox and()
    mailboxQuery.and(mailboxFilter, domainFilter);
  });

  it("and()/or() need at least one filter (the controller rejects `and()`)", () => {
    // @ts-expect-error and of nothing
    mailboxQuery.and();
    // @ts-expect-error or of nothing
    mailboxQuery.or();
    // @ts-expect-error RqlFilter<Tenant> is not RqlFilter<Mailbox>
    expectTypeOf<RqlFilter<Tenant>>().toExtend<RqlFilter<Mailbox>>();
    // @ts-expect-error RqlFilter<Mailbox> is not RqlFilter<Tenant>
    expectTypeOf<RqlFilter<Mailbox>>().toExtend<RqlFilter<Tenant>>();
    // @ts-expect-error a Tenant filter in a Mailbox list
    void listMailboxes(client, { filter: tenantFilter });
    // @ts-expect-error a Domain filter in a Tenant list
    void cloudmailSdk.listTenants(client, { filter: domainFilter });
  });
});

describe("RQL builder: sort, select, limit", () => {
  it("sort takes known scalar keys with an optional + or -", () => {
    expectTypeOf<{ sort: ["quota", "-quota", "+localPart", "-aps.id"] }>().toExtend<ListQuery<Mailbox>>();
    // @ts-expect-error misspelt key
    expectTypeOf<{ sort: ["-qota"] }>().toExtend<ListQuery<Mailbox>>();
    // @ts-expect-error ~ is not a direction
    expectTypeOf<{ sort: ["~quota"] }>().toExtend<ListQuery<Mailbox>>();
    // @ts-expect-error two directions
    expectTypeOf<{ sort: ["+-quota"] }>().toExtend<ListQuery<Mailbox>>();
    // @ts-expect-error arrays cannot be sorted on
    expectTypeOf<{ sort: ["-aliases"] }>().toExtend<ListQuery<Mailbox>>();
    void listMailboxes(client, { sort: ["-quota", "+localPart", "aps.status"] });
    // @ts-expect-error a relation is not a sort key
    void listMailboxes(client, { sort: ["tenant"] });
  });

  it("select takes only property names (relations included, to get links)", () => {
    expectTypeOf<{ select: ["localPart", "quota", "tenant", "autoReply"] }>().toExtend<ListQuery<Mailbox>>();
    // @ts-expect-error unknown name
    expectTypeOf<{ select: ["localpart"] }>().toExtend<ListQuery<Mailbox>>();
    // @ts-expect-error a Tenant property
    expectTypeOf<{ select: ["retentionDays"] }>().toExtend<ListQuery<Mailbox>>();
  });

  it("limit is [start, count?] of numbers; the paging function takes no limit", () => {
    expectTypeOf<{ limit: [0, 10] }>().toExtend<ListQuery<Mailbox>>();
    expectTypeOf<{ limit: [5] }>().toExtend<ListQuery<Mailbox>>();
    // @ts-expect-error start is a number
    expectTypeOf<{ limit: ["0", 10] }>().toExtend<ListQuery<Mailbox>>();
    // @ts-expect-error listMailboxPages does the paging itself
    void listMailboxPages(client, { limit: [0, 10] });
  });
});

describe("parameters", () => {
  it("custom operations take their declared parameters", () => {
    expectTypeOf<MailboxPurgeArchiveParams>().toEqualTypeOf<{ olderThanDays: Int64; dryRun?: boolean }>();
    expectTypeOf(mailboxPurgeArchive).parameters.toEqualTypeOf<[ApsClient, string, MailboxPurgeArchiveParams]>();
    void mailboxPurgeArchive(client, "m1", { olderThanDays: 30 });
    void mailboxPurgeArchive(client, "m1", { olderThanDays: 30n, dryRun: true });
    // @ts-expect-error olderThanDays is required
    void mailboxPurgeArchive(client, "m1", {});
    // @ts-expect-error olderThanDays is required
    void mailboxPurgeArchive(client, "m1", { dryRun: true });
    // @ts-expect-error olderThanDays is an integer
    void mailboxPurgeArchive(client, "m1", { olderThanDays: "30" });
    // @ts-expect-error dryRun is a boolean
    void mailboxPurgeArchive(client, "m1", { olderThanDays: 30, dryRun: "yes" });
    // @ts-expect-error unknown parameter
    void mailboxPurgeArchive(client, "m1", { olderThanDays: 30, force: true });
    // @ts-expect-error the resource id is needed
    void mailboxPurgeArchive(client, { olderThanDays: 30 });
  });

  it("path parameters are required, query parameters keep their types", () => {
    void tenantUsage(client, "t1", { period: "2024-01", top: 5, detailed: true });
    // @ts-expect-error period (a path parameter) is required
    void tenantUsage(client, "t1", { top: 5 });
    // @ts-expect-error top is an integer
    void tenantUsage(client, "t1", { period: "2024-01", top: "5" });
  });

  it("body parameters: a structure, or raw data for a contentType body", () => {
    void mailboxChangePassword(client, "m1", { request: { newPassword: "correct horse battery" } });
    // @ts-expect-error newPassword is required in PasswordChange
    void mailboxChangePassword(client, "m1", { request: { signOutEverywhere: true } });
    // @ts-expect-error the body is the structure under its parameter name, not the structure itself
    void mailboxChangePassword(client, "m1", { newPassword: "correct horse battery" });
    void tenantImportMailboxes(client, "t1", { file: "address,quota\n" });
    void tenantImportMailboxes(client, "t1", { file: new Uint8Array([1, 2]) });
    void tenantImportMailboxes(client, "t1", { file: new Blob(["a"]) });
    // @ts-expect-error a number is not raw data
    void tenantImportMailboxes(client, "t1", { file: 5 });
    // @ts-expect-error a JSON object is not raw data
    void tenantImportMailboxes(client, "t1", { file: { address: "a" } });
  });

  it("static operations take no resource id", () => {
    expectTypeOf(mailboxCheckAvailability).parameters.toEqualTypeOf<[ApsClient, MailboxCheckAvailabilityParams]>();
    void mailboxCheckAvailability(client, { query: { localPart: "anna", domain: "example.com" } });
    // @ts-expect-error no resource id for a static operation
    void mailboxCheckAvailability(client, "m1", { query: { localPart: "anna", domain: "example.com" } });
    // @ts-expect-error domain is required in AvailabilityQuery
    void mailboxCheckAvailability(client, { query: { localPart: "anna" } });
  });

  it("provision takes XCreate: required properties needed, read-only ones refused", () => {
    expectTypeOf(provisionMailbox).parameters.toEqualTypeOf<[ApsClient, MailboxCreate]>();
    void provisionMailbox(client, {
      localPart: "anna",
      password: "0123456789",
      quota: 10n,
      tenant: { aps: { id: "t1" } },
      domain: { aps: { id: "d1" } },
    });
    // @ts-expect-error password is required on provisioning
    void provisionMailbox(client, { localPart: "anna" });
    // @ts-expect-error address is read-only
    void provisionMailbox(client, { localPart: "anna", password: "0123456789", address: "anna@example.com" });
    // @ts-expect-error used is read-only
    void provisionMailbox(client, { localPart: "anna", password: "0123456789", used: 1 });
    // @ts-expect-error backendId is read-only
    void provisionMailbox(client, { localPart: "anna", password: "0123456789", backendId: "b1" });
    // @ts-expect-error a link is named by { aps: { id } }, not by a string
    void provisionMailbox(client, { localPart: "anna", password: "0123456789", tenant: "t1" });
    expectTypeOf<MailboxCreate>().not.toHaveProperty("address");
    expectTypeOf<MailboxCreate>().not.toHaveProperty("lastLogin");
  });

  it("provision needs every required relation the controller does not link itself (a 400 otherwise)", () => {
    const tenant = { aps: { id: "t1" } };
    const domain = { aps: { id: "d1" } };
    const mailbox = { localPart: "anna", password: "0123456789" };
    expectTypeOf<MailboxCreate["tenant"]>().toEqualTypeOf<ApsLinkRef>();
    expectTypeOf<MailboxCreate["domain"]>().toEqualTypeOf<ApsLinkRef>();
    // A weak relation stays optional.
    expectTypeOf<MailboxCreate>().toHaveProperty("user").toEqualTypeOf<ApsLinkRef | undefined>();
    void provisionMailbox(client, { ...mailbox, tenant, domain });
    // @ts-expect-error domain is a required relation of Mailbox
    void provisionMailbox(client, { ...mailbox, tenant });
    // @ts-expect-error tenant is a required relation of Mailbox
    void provisionMailbox(client, { ...mailbox, domain });
    // @ts-expect-error a required link cannot be null
    void provisionMailbox(client, { ...mailbox, tenant, domain: null });
    // @ts-expect-error tenant is a required relation of Domain
    void cloudmailSdk.provisionDomain(client, { name: "example.com" });
    // Tenant's required `app` links to CloudMail, the application root: the controller links it when left out.
    void cloudmailSdk.provisionTenant(client, { account: { aps: { id: "a1" } }, subscription: { aps: { id: "s1" } } });
    // @ts-expect-error account is a required relation of Tenant
    void cloudmailSdk.provisionTenant(client, { subscription: { aps: { id: "s1" } } });
    expectTypeOf<TenantCreate>().toHaveProperty("app").toEqualTypeOf<ApsLinkRef | undefined>();
  });

  it("a required collection needs at least one link; an optional one does not", () => {
    const customer = { aps: { id: "c1" } };
    expectTypeOf<OrderCreate>().toHaveProperty("approvers").toEqualTypeOf<[ApsLinkRef, ...ApsLinkRef[]]>();
    expectTypeOf<OrderCreate>().toHaveProperty("notes").toEqualTypeOf<ApsLinkRef[] | undefined>();
    assertType<OrderCreate>({ number: "AB-1", lines: [], internal: "x", customer, approvers: [customer], notes: [] });
    // @ts-expect-error approvers is a required collection
    assertType<OrderCreate>({ number: "AB-1", lines: [], internal: "x", customer });
    // @ts-expect-error an empty list is no link: the controller refuses it as it refuses none
    assertType<OrderCreate>({ number: "AB-1", lines: [], internal: "x", customer, approvers: [] });
    // @ts-expect-error customer is a required relation of Order
    assertType<OrderCreate>({ number: "AB-1", lines: [], internal: "x", approvers: [customer] });
  });

  it("installing takes the application root's settings (CloudMailSettings), as the controller checks them", () => {
    const where = { package: "p1", endpoint: "https://endpoint.test" };
    const settings = {
      apiEndpoint: "https://api.example",
      apiKey: "key-0123456789abcdef",
      apiSecret: "secret-0123456789",
    };
    expectTypeOf(cloudmailSdk.installCloudMail).parameters.toEqualTypeOf<
      [ApsClient, InstallRequest<CloudMailSettings>]
    >();
    expectTypeOf(cloudmailSdk.installCloudMail).returns.toEqualTypeOf<Promise<InstanceInfo>>();
    expectTypeOf<CloudMailSettings["defaultQuota"]>().toEqualTypeOf<Int64 | null | undefined>();
    expectTypeOf<CloudMailSettings>().not.toHaveProperty("tenants");
    expectTypeOf<CloudMailSettings>().not.toHaveProperty("aps");
    // Only the root type of a package gets an install function.
    expectTypeOf(cloudmailSdk).not.toHaveProperty("installTenant");
    void cloudmailSdk.installCloudMail(client, { ...where, settings });
    void cloudmailSdk.installCloudMail(client, {
      ...where,
      endpointCa: "PEM",
      settings: { ...settings, imapHost: "imap.example", defaultQuota: 10240n, smtpHost: null },
    });
    // @ts-expect-error CloudMail has required properties: the settings are required
    void cloudmailSdk.installCloudMail(client, where);
    void cloudmailSdk.installCloudMail(client, {
      ...where,
      // @ts-expect-error apiSecret is required
      settings: { apiEndpoint: "https://api.example", apiKey: "key-0123456789abcdef" },
    });
    // @ts-expect-error misspelt setting
    void cloudmailSdk.installCloudMail(client, { ...where, settings: { ...settings, imapHots: "imap.example" } });
    // @ts-expect-error defaultQuota is an integer
    void cloudmailSdk.installCloudMail(client, { ...where, settings: { ...settings, defaultQuota: "10 GB" } });
    // @ts-expect-error a link is not a setting
    void cloudmailSdk.installCloudMail(client, { ...where, settings: { ...settings, tenants: [] } });
    // The untyped form stays as it was.
    void installInstance(client, { ...where, settings: { anything: 1 } });
    void installInstance(client, where);
    // Settings of a root without required properties may be left out.
    expectTypeOf<{ package: string; endpoint: string }>().toExtend<InstallRequest<{ note?: string }>>();
  });

  it("configure takes XUpdate: everything optional, no read-only or final property", () => {
    expectTypeOf(configureMailbox).parameters.toEqualTypeOf<[ApsClient, string, MailboxUpdate]>();
    void configureMailbox(client, "m1", {});
    void configureMailbox(client, "m1", { quota: 20, plan: "business", displayName: null });
    // @ts-expect-error localPart is final
    void configureMailbox(client, "m1", { localPart: "bob" });
    // @ts-expect-error address is read-only
    void configureMailbox(client, "m1", { address: "bob@example.com" });
    // @ts-expect-error quota is an integer
    void configureMailbox(client, "m1", { quota: "20" });
    // @ts-expect-error plan outside the enum
    void configureMailbox(client, "m1", { plan: "gold" });
  });

  it("link functions exist only for declared relations", () => {
    // One module holds the package's client functions: those of type T start with link<T>, unlink<T>.
    type LinkFunctions<T extends string> = Extract<
      keyof typeof cloudmailSdk,
      `link${T}${string}` | `unlink${T}${string}`
    >;
    expectTypeOf<LinkFunctions<"Mailbox">>().toEqualTypeOf<
      | "linkMailboxTenant"
      | "unlinkMailboxTenant"
      | "linkMailboxDomain"
      | "unlinkMailboxDomain"
      | "linkMailboxUser"
      | "unlinkMailboxUser"
    >();
    expectTypeOf<LinkFunctions<"Domain">>().toEqualTypeOf<
      "linkDomainTenant" | "unlinkDomainTenant" | "linkDomainMailboxes" | "unlinkDomainMailboxes"
    >();
    expectTypeOf<LinkFunctions<"CloudMail">>().toEqualTypeOf<"linkCloudMailTenants" | "unlinkCloudMailTenants">();
    expectTypeOf<LinkFunctions<"Tenant">>().toEqualTypeOf<
      | "linkTenantApp"
      | "unlinkTenantApp"
      | "linkTenantAccount"
      | "unlinkTenantAccount"
      | "linkTenantSubscription"
      | "unlinkTenantSubscription"
      | "linkTenantDomains"
      | "unlinkTenantDomains"
      | "linkTenantMailboxes"
      | "unlinkTenantMailboxes"
    >();
    expectTypeOf(linkMailboxTenant).parameters.toEqualTypeOf<[ApsClient, string, string]>();
    expectTypeOf(unlinkMailboxTenant).parameters.toEqualTypeOf<[ApsClient, string, string]>();
    // @ts-expect-error aliases is a property, not a relation
    void cloudmailSdk.linkMailboxAliases(client, "m1", "x");
    // @ts-expect-error Mailbox has no mailboxes relation (Tenant has)
    void cloudmailSdk.linkMailboxMailboxes(client, "m1", "x");
  });

  it("Suspendable types have disable/enable; others do not", () => {
    expectTypeOf(cloudmailSdk).toHaveProperty("disableMailbox");
    expectTypeOf(cloudmailSdk).toHaveProperty("enableMailbox");
    expectTypeOf(cloudmailSdk).not.toHaveProperty("disableTenant");
    expectTypeOf(cloudmailSdk).not.toHaveProperty("enableDomain");
  });
});

describe("responses", () => {
  it("CRUD functions resolve with the type as read", () => {
    expectTypeOf(getMailbox).returns.toEqualTypeOf<Promise<Mailbox>>();
    expectTypeOf(provisionMailbox).returns.toEqualTypeOf<Promise<Mailbox>>();
    expectTypeOf(configureMailbox).returns.toEqualTypeOf<Promise<Mailbox>>();
    expectTypeOf(disableMailbox).returns.toEqualTypeOf<Promise<Mailbox>>();
    expectTypeOf(enableMailbox).returns.toEqualTypeOf<Promise<Mailbox>>();
    expectTypeOf(unprovisionMailbox).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(listMailboxes).returns.toEqualTypeOf<Promise<Page<Mailbox>>>();
    expectTypeOf(listMailboxPages).returns.toEqualTypeOf<AsyncGenerator<Mailbox[], void, undefined>>();
    expectTypeOf<Page<Mailbox>["items"]>().toEqualTypeOf<Mailbox[]>();
    expectTypeOf<Page<Mailbox>["range"]["total"]>().toEqualTypeOf<number>();
  });

  it("relations list the target type; link and unlink resolve with nothing", () => {
    expectTypeOf(listMailboxTenant).returns.toEqualTypeOf<Promise<Tenant[]>>();
    expectTypeOf(listMailboxDomain).returns.toEqualTypeOf<Promise<Domain[]>>();
    expectTypeOf(listMailboxUser).returns.toEqualTypeOf<Promise<ServiceUser[]>>();
    expectTypeOf(cloudmailSdk.listTenantMailboxes).returns.toEqualTypeOf<Promise<Mailbox[]>>();
    expectTypeOf(linkMailboxTenant).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(unlinkMailboxTenant).returns.toEqualTypeOf<Promise<void>>();
  });

  it("operations with a declared JSON response resolve with that type", () => {
    expectTypeOf(mailboxChangePassword).returns.toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(mailboxCheckAvailability).returns.toEqualTypeOf<Promise<AvailabilityResult>>();
    expectTypeOf(mailboxStorageUsage).returns.toEqualTypeOf<Promise<Usage>>();
    expectTypeOf(mailboxPurgeArchive).returns.toEqualTypeOf<Promise<PurgeResult>>();
    expectTypeOf(tenantUsage).returns.toEqualTypeOf<Promise<UsageReport>>();
    expectTypeOf(tenantImportMailboxes).returns.toEqualTypeOf<Promise<ImportReport>>();
    expectTypeOf(domainRequiredRecords).returns.toEqualTypeOf<Promise<DnsRecord[]>>();
    expectTypeOf(domainVerifyDns).returns.toEqualTypeOf<Promise<DnsCheck>>();
    // PurgeResult's integers are 64-bit: number or bigint.
    expectTypeOf<NonNullable<PurgeResult["freed"]>>().toEqualTypeOf<number | bigint>();
    expectTypeOf<NonNullable<Tenant["retentionDays"]>>().toEqualTypeOf<TenantRetentionDays>();
  });

  it("operations with a contentType response resolve with the Response itself", () => {
    expectTypeOf(tenantExportMailboxes).returns.toEqualTypeOf<Promise<Response>>();
    expectTypeOf(snapshotDownload).returns.toEqualTypeOf<Promise<Response>>();
    expectTypeOf(vpsScreenshot).returns.toEqualTypeOf<Promise<Response>>();
  });

  it("subscriptions name only the type's event-handler operations", () => {
    expectTypeOf<TenantEventHandler>().toEqualTypeOf<
      "onSubscriptionLimitsChanged" | "onDomainLinked" | "onMailboxChanged"
    >();
    expectTypeOf(subscribeTenant).returns.toEqualTypeOf<Promise<Subscription<TenantEventHandler>>>();
    expectTypeOf(listTenantEventSubscriptions).returns.toEqualTypeOf<Promise<Subscription<TenantEventHandler>[]>>();
    const source = { type: "http://cloudmail.example.com/types/domain/1.0" };
    void subscribeTenant(client, "t1", {
      event: "http://aps-standard.org/core/events/linked",
      source,
      handler: "onDomainLinked",
      relation: "tenant",
    });
    void subscribeTenant(client, "t1", {
      event: "http://aps-standard.org/core/events/changed",
      source: { id: "m1" },
      handler: "onMailboxChanged",
    });
    void subscribeTenant(client, "t1", {
      event: "http://aps-standard.org/core/events/changed",
      source,
      // @ts-expect-error usage is an operation of Tenant but not an event handler
      handler: "usage",
    });
    void subscribeTenant(client, "t1", {
      event: "http://aps-standard.org/core/events/changed",
      source,
      // @ts-expect-error misspelt handler
      handler: "onDomainLinkd",
    });
    // @ts-expect-error a handler is required
    void subscribeTenant(client, "t1", { event: "http://aps-standard.org/core/events/changed", source });
    // Types without event handlers get no subscribe function.
    expectTypeOf(cloudmailSdk).not.toHaveProperty("subscribeMailbox");
    expectTypeOf(cloudmailSdk).not.toHaveProperty("subscribeDomain");
  });
});

describe("one import: generated/client/index.gen.ts", () => {
  it("exports the runtime and every generated function and type, the very same ones", () => {
    expectTypeOf(sdk.createClient).toEqualTypeOf(createClient);
    expectTypeOf(sdk.provisionMailbox).toEqualTypeOf(provisionMailbox);
    expectTypeOf(sdk.installCloudMail).toEqualTypeOf(cloudmailSdk.installCloudMail);
    expectTypeOf(sdk.mailboxQuery).toEqualTypeOf(mailboxQuery);
    expectTypeOf(sdk.listTasks).toEqualTypeOf(listTasks);
    expectTypeOf<sdk.MailboxCreate>().toEqualTypeOf<MailboxCreate>();
    expectTypeOf<sdk.CloudMailSettings>().toEqualTypeOf<CloudMailSettings>();
    expectTypeOf<sdk.Int64>().toEqualTypeOf<Int64>();
    expectTypeOf<sdk.ApsLinkRef>().toEqualTypeOf<ApsLinkRef>();
  });

  it("gives names two modules export longer ones, and lets a generated name hide the runtime's", () => {
    // Subscription's `services` relation and SubscriptionService's list function are both listSubscriptionServices:
    // the package's client module declares each with its type's name in front, as the index exports them.
    expectTypeOf(sdk.subscriptionListSubscriptionServices).toEqualTypeOf(listSubscriptionServices);
    expectTypeOf(sdk.subscriptionServiceListSubscriptionServices).toEqualTypeOf(listSubscriptionServicesPage);
    expectTypeOf(sdk).not.toHaveProperty("listSubscriptionServices");
    // ErrorInfo is declared by several CloudMail types: each under its type's name, as in the package index.
    expectTypeOf<sdk.CloudMailErrorInfo>().toEqualTypeOf<CloudMailErrorInfo>();
    expectTypeOf<sdk.Subscription>().toEqualTypeOf<CoreSubscription>();
  });
});
