/**
 * `aps-gen/connector`: the connector runtime a vendor's application endpoint is built on, from
 * one module: the HTTPS app that routes the controller's calls to handlers, replies, the call
 * context, the instance credential store, the client to call the controller back, start-up and
 * its HTTPS identity, and the shapes of what the controller sends (the `aps` section of a
 * provisioning call, link references, event notifications).
 */
export * from "./app.ts";
export * from "./base-handlers.ts";
export * from "./context.ts";
export * from "./replies.ts";
export * from "./credentials.ts";
export * from "./controller-client.ts";
export * from "./serve.ts";
export * from "./tls.ts";
export { isSignedBy } from "./trust.ts";
export type { EventNotification } from "../common/event-notification.ts";
export type { ApsLinkRef, ApsProvisionMeta } from "../common/types.ts";
