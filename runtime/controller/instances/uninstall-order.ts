/**
 * The order an uninstall removes an instance's resources in: dependents before what they hold
 * strong (required) links to, the application root last of all. A cycle of strong links is
 * removed together, in the order the resources were listed.
 */
export function uninstallOrder<R extends { readonly id: string }>(
  resources: readonly R[],
  strongLinks: readonly { readonly source: string; readonly target: string }[],
  rootId: string | null,
): R[] {
  const remaining = new Map(resources.map((r) => [r.id, r]));
  const order: R[] = [];
  while (remaining.size) {
    // Those no remaining resource holds a strong link to; the root last of all.
    const held = new Set(strongLinks.filter((l) => remaining.has(l.source)).map((l) => l.target));
    let batch = [...remaining.values()].filter((r) => !held.has(r.id) && (r.id !== rootId || remaining.size === 1));
    if (batch.length === 0) batch = [...remaining.values()]; // a cycle of strong links: take them all
    for (const r of batch) {
      order.push(r);
      remaining.delete(r.id);
    }
  }
  return order;
}
