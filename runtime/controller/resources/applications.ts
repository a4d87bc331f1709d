/**
 * How the resource features reach the application that serves a type: its endpoint, the
 * forwarder, and the stores that keep a call's consequences (tasks, transactions, claims, intents).
 * A controller started without them answers 502 for application types.
 */
import type { Caller } from "../auth/caller.ts";
import type { EndpointTarget } from "../forward/endpoint-client.ts";
import type { Forwarder, ForwardOrigin } from "../forward/forwarder.ts";
import type { TransactionStore } from "../forward/transaction-store.ts";
import type { ServingInstance } from "../instances/instance-lookup.ts";
import type { IntentStore } from "../intents/intent-store.ts";
import type { RegistryType } from "../registry.ts";
import type { ResourceClaims } from "../store/resource-claims.ts";
import { ControllerError } from "../support/errors.ts";
import type { TaskStore } from "../tasks/task-store.ts";

export interface Applications {
  targetFor(type: RegistryType): Promise<ServingInstance>;
  /** The endpoint of an instance by id (for tasks). */
  targetOf(instanceId: string): Promise<EndpointTarget | undefined>;
  readonly forwarder: Forwarder;
  readonly tasks: TaskStore;
  /** What the transaction id of a provisioning call stands for, for the application's calls back during it. */
  readonly transactions: TransactionStore;
  /** One configure of a resource at a time while the application is called. */
  readonly claims: ResourceClaims;
  /** Provisionings sent and not yet stored, to undo after a crash or a failure. */
  readonly intents: IntentStore;
  /** The provider's account: where an application acting as itself provisions. */
  readonly provider?: { readonly id: string; readonly path: string };
}

/** The applications, or 502 when the controller runs without them. */
export function applicationsFor(applications: Applications | undefined, type: RegistryType): Applications {
  if (!applications)
    throw new ControllerError(
      502,
      `${type.name} is served by an application, and this controller was started without access to applications.`,
    );
  return applications;
}

/**
 * Who every call to an application made for `caller` names
 * (https://docs.cloudblue.com/cbc/sdk/21.0/api/rest/protocol/headers). `APS-Identity-ID` is the
 * user the caller's token names within its account (the Connect extension finds the acting
 * reseller by it: cbcext/services/tier_configurations.py:17); anonymous tokens (no account, even
 * one naming a user: they act with the public role only) and applications, impersonating or
 * not, send none. `APS-Application-ID` names the calling instance. Every forward made for a
 * request takes its origin here: resources, links, operations, Suspendable, and the install,
 * credentials, upgrade and uninstall of instances.
 */
export function forwardOrigin(caller: Caller): ForwardOrigin {
  return {
    ...(caller.userId && caller.accountId ? { identityId: caller.userId } : {}),
    ...(caller.instanceId ? { applicationId: caller.instanceId } : {}),
    ...(caller.request ? { request: caller.request } : {}),
  };
}

/** 409 while an asynchronous operation on the resource has not ended. */
export async function requireNoPendingTask(applications: Applications | undefined, id: string): Promise<void> {
  if (await applications?.tasks.pendingFor(id))
    throw new ControllerError(409, "An asynchronous operation on this resource is still running; wait until it ends.");
}
