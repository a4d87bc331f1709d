import type { Operation } from "./model.ts";
import { CoreTypeIds } from "../../runtime/common/core-types.ts";

const RESOURCE = CoreTypeIds.resource;

/**
 * An operation whose one body parameter is a core `Notification` is an event handler
 * (docs/aps/events.md): subscriptions name it, the controller POSTs notifications to it.
 */
export function isEventHandler(op: Operation): boolean {
  const [only, ...rest] = op.parameters;
  return (
    !op.static &&
    op.verb === "POST" &&
    rest.length === 0 &&
    only?.kind === "body" &&
    only.type?.kind === "structure" &&
    only.type.typeId === RESOURCE &&
    only.type.name === "Notification"
  );
}
