/**
 * The events of removing a resource: `unlinked` for each of its links, on both ends
 * (events/link-events.ts), then its `removed`. A tenant whose user is unprovisioned hears of it as
 * it would of an unlink (FallBall re-reads its usage then, connector/v1/resources/tenant.py:337-344).
 * Recorded before the row goes, while its links still say who may see them.
 */
import { CoreEvent } from "../events/core-events.ts";
import { distinctEvents, linkEvents } from "../events/link-events.ts";
import type { RaisedEvent } from "../events/outbox.ts";
import { raise } from "../events/raise.ts";
import type { TypeRegistry } from "../registry.ts";
import type { ResourceStore, StoredResource } from "../store/resource-store.ts";

export async function removalEvents(
  store: ResourceStore,
  registry: TypeRegistry,
  row: StoredResource,
): Promise<RaisedEvent[]> {
  const [from, to] = await Promise.all([store.linksFrom(row.id), store.linksTo(row.id)]);
  const others = await store.rowsById([...from.map((l) => l.targetId), ...to.map((l) => l.sourceId)]);
  const events: RaisedEvent[] = [];
  for (const l of from)
    events.push(...linkEvents(registry, CoreEvent.unlinked, row, l.relation, others.get(l.targetId) ?? l.targetId));
  for (const l of to) {
    const source = others.get(l.sourceId);
    if (source) events.push(...linkEvents(registry, CoreEvent.unlinked, source, l.relation, row));
  }
  events.push(raise(registry, CoreEvent.removed, row));
  return distinctEvents(events);
}
