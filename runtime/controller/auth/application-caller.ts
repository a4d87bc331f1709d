/**
 * Application instances as callers of every `/aps/2` route (docs/aps/security.md, "Callers"): an
 * instance authenticates with the client certificate the controller issued it (or, see
 * oauth-verifier.ts, an OAuth 1 signature with its key) and acts as itself, or, with
 * `APS-Resource-ID: <one of its resources>`, as the customer that resource belongs to
 * (impersonation, docs/aps/security.md, "Applications as callers"). What each may do is in
 * auth/roles.ts.
 */
import type { Context } from "hono";
import type { HttpBindings } from "@hono/node-server";
import { ControllerError } from "../support/errors.ts";
import type { TransactionStore } from "../forward/transaction-store.ts";
import type { InstanceLookup } from "../instances/instance-lookup.ts";
import type { ResourceStore } from "../store/resource-store.ts";
import { isUuid } from "../support/uuid.ts";
import type { Caller } from "./caller.ts";
import { peerCertificate } from "./peer-certificate.ts";

type Env = { Bindings: HttpBindings };

/** Finds the calling instance by a second kind of credentials (OAuth); undefined when the request carries none. */
export type InstanceAuthenticator = (c: Context<Env>) => Promise<string | undefined>;

export class ApplicationCallers {
  constructor(
    private readonly instances: InstanceLookup,
    private readonly store: ResourceStore,
    private readonly transactions: TransactionStore,
    private readonly others: readonly InstanceAuthenticator[] = [],
  ) {}

  /**
   * The caller of a request made with application credentials, or undefined when it carries
   * none (then the request is judged by its APS-Token). A certificate this controller did not
   * issue, or that no instance holds, is refused rather than ignored.
   */
  resolve(c: Context<Env>): Promise<Caller | undefined> | undefined {
    // Most calls (a token, no certificate, no OAuth header) carry no application credentials: known at once, with nothing awaited.
    if (!peerCertificate(c) && c.req.header("authorization") === undefined) return undefined;
    return this.resolveCredentials(c);
  }

  private async resolveCredentials(c: Context<Env>): Promise<Caller | undefined> {
    const instanceId = await this.instanceOf(c);
    if (!instanceId) return undefined;
    const actingAs = c.req.header("aps-resource-id");
    if (!actingAs) return { kind: "application", instanceId };
    return this.impersonating(instanceId, actingAs.trim(), c.req.header("aps-transaction-id"));
  }

  private async instanceOf(c: Context<Env>): Promise<string | undefined> {
    const peer = peerCertificate(c);
    if (peer) {
      if (!peer.authorized) {
        // A browser may hold a certificate of its own; it still calls with its APS-Token.
        if (c.req.header("aps-token")) return undefined;
        throw new ControllerError(401, "The client certificate was not issued by this controller.");
      }
      const instance = await this.instances.byFingerprint(peer.fingerprint);
      if (instance) return instance.id;
      // During an install the instance is not stored yet: its new certificate is in the transaction's claims.
      const claims = await this.transactions.read(c.req.header("aps-transaction-id"));
      if (claims?.fingerprint === peer.fingerprint) return claims.instanceId;
      throw new ControllerError(
        403,
        "No application instance holds this certificate (was it re-issued or the instance removed?).",
      );
    }
    for (const authenticate of this.others) {
      const id = await authenticate(c);
      if (id) return id;
    }
    return undefined;
  }

  /**
   * `APS-Resource-ID`: the instance acts as the account that owns one of its resources. A
   * resource its running provisioning creates (named by the transaction's claims, not stored
   * yet) has no owner to act as: the instance then acts as itself.
   */
  private async impersonating(
    instanceId: string,
    resourceId: string,
    transactionId: string | undefined,
  ): Promise<Caller> {
    const row = isUuid(resourceId) ? await this.store.get(resourceId) : undefined;
    if (!row) {
      const claims = await this.transactions.read(transactionId);
      if (claims && claims.resourceId === resourceId && claims.instanceId === instanceId)
        return { kind: "application", instanceId };
      throw new ControllerError(
        403,
        `APS-Resource-ID ${resourceId} is not a resource of this application instance, so it cannot act for its owner.`,
      );
    }
    if (row.instanceId !== instanceId || !row.ownerAccount)
      throw new ControllerError(
        403,
        `APS-Resource-ID ${resourceId} is not a resource of this application instance, so it cannot act for its owner.`,
      );
    return { kind: "user", accountId: row.ownerAccount, accountPath: row.ownerPath, instanceId };
  }
}
