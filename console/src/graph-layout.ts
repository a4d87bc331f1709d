/**
 * Places types for the graph page: layered by inheritance (a type one row below the lowest of its
 * parents, types that implement nothing at the top), each layer ordered by where its parents are
 * (fewer crossing lines), wrapped into rows of at most {@link ROW_SIZE}. No layout library: for
 * a few hundred types this is enough, and it is a few kilobytes less.
 */
import type { TypeMap } from "./type-catalog.ts";

export interface GraphNode {
  readonly id: string;
  readonly name: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: "implements" | "relation";
  /** The relation's name (relations only). */
  readonly name?: string;
}

export interface GraphLayout {
  readonly nodes: ReadonlyMap<string, GraphNode>;
  readonly edges: readonly GraphEdge[];
  readonly width: number;
  readonly height: number;
}

const ROW_SIZE = 8;
const NODE_HEIGHT = 36;
const GAP_X = 28;
const GAP_Y = 72;
/** Rough width of a character of the node font (12px system-ui). */
const CHAR_WIDTH = 7;

export function layoutGraph(types: TypeMap): GraphLayout {
  const depth = depths(types);
  const layers: string[][] = [];
  for (const id of [...types.keys()].sort((a, b) => nameOf(types, a).localeCompare(nameOf(types, b))))
    (layers[depth.get(id)!] ??= []).push(id);

  // Order each layer by the mean position of its parents in the layers above.
  const position = new Map<string, number>();
  const rows: string[][] = [];
  for (const layer of layers.filter(Boolean)) {
    const key = (id: string): number => {
      const placed = (types.get(id)?.implements ?? [])
        .map((p) => position.get(p))
        .filter((p): p is number => p !== undefined);
      return placed.length ? placed.reduce((a, b) => a + b, 0) / placed.length : Number.MAX_SAFE_INTEGER;
    };
    const ordered = [...layer].sort((a, b) => key(a) - key(b));
    for (const [i, id] of ordered.entries()) position.set(id, i / Math.max(1, ordered.length - 1));
    for (let i = 0; i < ordered.length; i += ROW_SIZE) rows.push(ordered.slice(i, i + ROW_SIZE));
  }

  const widthOf = (id: string) => Math.max(110, nameOf(types, id).length * CHAR_WIDTH + 28);
  const rowWidth = (row: string[]) => row.reduce((sum, id) => sum + widthOf(id), 0) + GAP_X * (row.length - 1);
  const width = Math.max(0, ...rows.map(rowWidth));
  const nodes = new Map<string, GraphNode>();
  rows.forEach((row, r) => {
    let x = (width - rowWidth(row)) / 2;
    for (const id of row) {
      nodes.set(id, {
        id,
        name: nameOf(types, id),
        x,
        y: r * (NODE_HEIGHT + GAP_Y),
        width: widthOf(id),
        height: NODE_HEIGHT,
      });
      x += widthOf(id) + GAP_X;
    }
  });

  const edges: GraphEdge[] = [];
  for (const type of types.values()) {
    for (const parent of type.implements ?? [])
      if (types.has(parent)) edges.push({ from: type.id, to: parent, kind: "implements" });
    for (const [name, relation] of Object.entries(type.relations ?? {})) {
      const target = (relation as { type?: unknown } | undefined)?.type;
      if (typeof target === "string" && types.has(target))
        edges.push({ from: type.id, to: target, kind: "relation", name });
    }
  }
  return { nodes, edges, width, height: rows.length ? rows.length * (NODE_HEIGHT + GAP_Y) - GAP_Y : 0 };
}

/** Each type's layer: 0 when it implements no known type, else one more than its deepest parent. */
function depths(types: TypeMap): Map<string, number> {
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const of = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    // A cycle cannot pass the generator's checks; should one come, it is cut here.
    if (visiting.has(id)) return 0;
    visiting.add(id);
    const parents = (types.get(id)?.implements ?? []).filter((p) => types.has(p));
    const d = parents.length ? 1 + Math.max(...parents.map(of)) : 0;
    visiting.delete(id);
    depth.set(id, d);
    return d;
  };
  for (const id of types.keys()) of(id);
  return depth;
}

function nameOf(types: TypeMap, id: string): string {
  return types.get(id)?.name ?? id;
}
