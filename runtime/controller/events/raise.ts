/** Builds the events of a change from the rows it touches (see outbox.ts). */
import { stringifyJson } from "../../common/json-text.ts";
import { implementsType, type TypeRegistry } from "../registry.ts";
import { CoreEvent, PLATFORM_SUBSCRIPTION_TYPE } from "./core-events.ts";
import type { RaisedEvent } from "./outbox.ts";

/** What an event needs of its source resource. */
export interface EventSource {
  readonly id: string;
  readonly typeId: string;
  readonly ownerAccount: string | null;
  readonly ownerPath: string;
}

/** `event` raised by `source`. */
export function raise(
  registry: TypeRegistry,
  event: string,
  source: EventSource,
  extra: { relation?: string; targetId?: string; linkedIds?: readonly string[] } = {},
): RaisedEvent {
  return {
    event,
    sourceId: source.id,
    sourceTypes: [source.typeId, ...(registry.get(source.typeId)?.ancestors ?? [])],
    ownerAccount: source.ownerAccount,
    ownerPath: source.ownerPath,
    ...extra,
  };
}

/**
 * The events of a configure: `changed`, and limits/changed when the resource is a platform
 * subscription whose resource limits (`activationStructure.subscriptionResourceLimits`) differ.
 */
export function changeEvents(
  registry: TypeRegistry,
  source: EventSource,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): RaisedEvent[] {
  const events = [raise(registry, CoreEvent.changed, source)];
  if (
    implementsType(registry, source.typeId, PLATFORM_SUBSCRIPTION_TYPE) &&
    stringifyJson(limitsOf(before) ?? null) !== stringifyJson(limitsOf(after) ?? null)
  ) {
    events.push(raise(registry, CoreEvent.limitsChanged, source));
  }
  return events;
}

function limitsOf(values: Record<string, unknown>): unknown {
  return (values.activationStructure as { subscriptionResourceLimits?: unknown } | undefined)
    ?.subscriptionResourceLimits;
}
