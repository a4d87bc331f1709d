import type { ApsCallContext } from "./context.ts";
import type { HandlerResult, ServiceHandlers } from "./app.ts";
import { checkedBody, type MaybePromise } from "./replies.ts";

/**
 * The base operations of a generated service's handler interface (provision, configure,
 * unprovision, link callbacks), over the body types its resource type declares.
 */
export interface BaseHandlers<Create, Update> {
  provision(ctx: ApsCallContext, resource: Create): MaybePromise<HandlerResult>;
  /** `changes` is the resource as it will be once configured (every property, `aps`, links), as the platform sends it. */
  configure?(ctx: ApsCallContext, changes: Update): MaybePromise<HandlerResult>;
  unprovision?(ctx: ApsCallContext): MaybePromise<HandlerResult>;
  readonly links?: ServiceHandlers["links"];
}

/**
 * The runtime's handlers for the base operations a vendor implements: each calls the vendor's
 * method on the vendor's object (so a class keeps its `this`), and those it leaves out stay out,
 * so the runtime's defaults apply (a configure without a handler agrees: 204, and the controller stores the change).
 * The generated wiring of every service starts with it.
 */
export function baseHandlers<Create, Update>(handlers: BaseHandlers<Create, Update>): ServiceHandlers {
  const wired: { -readonly [K in keyof ServiceHandlers]: ServiceHandlers[K] } = {
    provision: (ctx, resource) => handlers.provision(ctx, checkedBody<Create>(resource)),
  };
  if (handlers.configure) wired.configure = (ctx, changes) => handlers.configure!(ctx, checkedBody<Update>(changes));
  if (handlers.unprovision) wired.unprovision = (ctx) => handlers.unprovision!(ctx);
  if (handlers.links) wired.links = handlers.links;
  return wired;
}
