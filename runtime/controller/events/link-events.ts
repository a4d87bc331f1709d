/**
 * The events of one link, raised on both of its ends (issue 27). A link is stored once, from the
 * resource whose relation names it (a user's `tenant`), and the other end sees it through its
 * own relation (the tenant's `users`, relations/backward-relations.ts). Whichever end made it —
 * the user provisioned with `"tenant": {"aps": {"id": T}}`, or through `POST .../T/users`, or
 * linked afterwards — one link raises one `linked` on the user (relation `tenant`) and one on
 * the tenant (relation `users`); removing it, or removing either end, raises `unlinked` the same
 * way. FallBall subscribes its tenant to linked/unlinked of `users` and re-reads usage on them
 * (roluch/fallball-connector connector/v1/resources/tenant.py:232-239, :337-344).
 */
import { backwardCollection } from "../relations/backward-relations.ts";
import { implementsType, type TypeRegistry } from "../registry.ts";
import type { RaisedEvent } from "./outbox.ts";
import { raise, type EventSource } from "./raise.ts";

/**
 * The relation of `target`'s type through which it sees links from resources of `sourceTypeId`:
 * the collection backward-relations.ts picks, else its one singular relation to that type.
 * Undefined when it has none (an anonymous backward relation: the link raises events on its
 * source only).
 */
export function otherEndRelation(
  registry: TypeRegistry,
  targetTypeId: string,
  sourceTypeId: string,
): string | undefined {
  const targetType = registry.get(targetTypeId);
  if (!targetType) return undefined;
  const collection = backwardCollection(registry, targetType, sourceTypeId);
  if (collection) return collection;
  const singular = Object.entries(targetType.relations).filter(
    ([, r]) => !r.collection && implementsType(registry, sourceTypeId, r.typeId),
  );
  return singular.length === 1 ? singular[0]![0] : undefined;
}

/** `event` (linked or unlinked) of the link `source` -`relation`-> `target`, on the source and, when it names it, on the target. */
export function linkEvents(
  registry: TypeRegistry,
  event: string,
  source: EventSource,
  relation: string,
  target: EventSource | string,
): RaisedEvent[] {
  const targetId = typeof target === "string" ? target : target.id;
  const events = [raise(registry, event, source, { relation, targetId, linkedIds: [targetId] })];
  if (typeof target === "string") return events;
  const back = otherEndRelation(registry, target.typeId, source.typeId);
  if (back)
    events.push(raise(registry, event, target, { relation: back, targetId: source.id, linkedIds: [source.id] }));
  return events;
}

/** Events with the same event, source, relation and target once (a link stored from both ends). */
export function distinctEvents(events: readonly RaisedEvent[]): RaisedEvent[] {
  const seen = new Set<string>();
  return events.filter((e) => {
    const key = `${e.event}\n${e.sourceId}\n${e.relation ?? ""}\n${e.targetId ?? ""}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
