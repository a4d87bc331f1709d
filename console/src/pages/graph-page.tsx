/**
 * The types as a graph (graph-layout.ts): a line from each type up to each type it implements, a
 * dashed one to each type its relations link to. Zoom with the buttons, the wheel or `+`/`-`, move
 * by dragging or with the arrow keys (the drawing takes focus), `0` to fit. A click on a type opens
 * its page; the same graph is listed as text below, for keyboards and screen readers.
 */
import { useMemo, useRef, useState } from "preact/hooks";
import { layoutGraph, type GraphEdge, type GraphLayout, type GraphNode } from "../graph-layout.ts";
import { href } from "../routes.ts";
import { loadTypes } from "../load-types.ts";
import type { TypeMap } from "../type-catalog.ts";
import { useLoad, WhenLoaded } from "../ui.tsx";

export default function GraphPage() {
  const types = useLoad(loadTypes, []);
  return (
    <>
      <h1>Graph</h1>
      <WhenLoaded loaded={types}>{(all) => <Graph types={all} />}</WhenLoaded>
    </>
  );
}

interface ViewBox {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

const MARGIN = 24;
const ZOOM_STEP = 1.25;

function Graph({ types }: { types: TypeMap }) {
  const layout = useMemo(() => layoutGraph(types), [types]);
  const fit: ViewBox = {
    x: -MARGIN,
    y: -MARGIN,
    w: Math.max(layout.width, 200) + 2 * MARGIN,
    h: Math.max(layout.height, 100) + 2 * MARGIN,
  };
  const [view, setView] = useState<ViewBox>(fit);
  const svg = useRef<SVGSVGElement>(null);
  const drag = useRef<{ x: number; y: number; view: ViewBox } | undefined>(undefined);

  /** Zooms by `factor` (< 1 in) around a point of the drawing (its centre by default), within 1/20 and 4 times the fitted size. */
  const zoom = (factor: number, cx = view.x + view.w / 2, cy = view.y + view.h / 2) => {
    const w = Math.min(fit.w * 4, Math.max(fit.w / 20, view.w * factor));
    const k = w / view.w;
    setView({ x: cx - (cx - view.x) * k, y: cy - (cy - view.y) * k, w, h: view.h * k });
  };
  /** Units of the drawing per screen pixel. */
  const scale = () => view.w / (svg.current?.clientWidth || view.w);
  const pan = (dx: number, dy: number) => setView({ ...view, x: view.x + dx, y: view.y + dy });

  const onWheel = (event: WheelEvent) => {
    event.preventDefault();
    const point = svg.current && toDrawing(svg.current, event.clientX, event.clientY);
    zoom(event.deltaY < 0 ? 1 / ZOOM_STEP : ZOOM_STEP, point?.x, point?.y);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const step = 40 * scale();
    const actions: Record<string, () => void> = {
      "+": () => zoom(1 / ZOOM_STEP),
      "=": () => zoom(1 / ZOOM_STEP),
      "-": () => zoom(ZOOM_STEP),
      "0": () => setView(fit),
      ArrowLeft: () => pan(-step, 0),
      ArrowRight: () => pan(step, 0),
      ArrowUp: () => pan(0, -step),
      ArrowDown: () => pan(0, step),
    };
    const action = actions[event.key];
    if (action && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      action();
    }
  };

  return (
    <>
      {/* biome-ignore lint/a11y/useSemanticElements: a row of buttons, not a form's fieldset */}
      <div class="toolbar" role="group" aria-label="Zoom">
        <button type="button" class="secondary" onClick={() => zoom(1 / ZOOM_STEP)}>
          Zoom in
        </button>
        <button type="button" class="secondary" onClick={() => zoom(ZOOM_STEP)}>
          Zoom out
        </button>
        <button type="button" class="secondary" onClick={() => setView(fit)}>
          Reset zoom
        </button>
        <span class="muted" id="graph-keys">
          {Math.round((fit.w / view.w) * 100)}% · on the drawing: + and − zoom, arrow keys move, 0 fits
        </span>
      </div>
      <p class="graph-legend">
        <span class="legend-implements">implements</span>
        <span class="legend-relation">relation</span>
      </p>
      <div class="graph-frame">
        {/* biome-ignore lint/a11y/useSemanticElements: a drawing cannot be a fieldset; a group, not an image, because an image's content is hidden from assistive technology and its nodes are links (axe-core: nested-interactive) */}
        <svg
          ref={svg}
          role="group"
          aria-label="Type graph"
          aria-describedby="graph-keys"
          tabindex={0}
          viewBox={`${view.x} ${view.y} ${view.w} ${view.h}`}
          preserveAspectRatio="xMidYMid meet"
          onWheel={onWheel}
          onKeyDown={onKeyDown}
          onPointerDown={(e) => {
            if (e.button !== 0) return;
            drag.current = { x: e.clientX, y: e.clientY, view };
          }}
          onPointerMove={(e) => {
            const start = drag.current;
            if (!start) return;
            if (!svg.current?.hasPointerCapture(e.pointerId)) {
              // Only a real drag captures the pointer: a click still reaches the type under it.
              if (Math.abs(e.clientX - start.x) + Math.abs(e.clientY - start.y) < 4) return;
              svg.current?.setPointerCapture(e.pointerId);
            }
            const k = start.view.w / (svg.current?.clientWidth || start.view.w);
            setView({
              ...start.view,
              x: start.view.x - (e.clientX - start.x) * k,
              y: start.view.y - (e.clientY - start.y) * k,
            });
          }}
          onPointerUp={() => (drag.current = undefined)}
          onPointerCancel={() => (drag.current = undefined)}
        >
          <defs>
            <Arrow id="arrow-implements" />
            <Arrow id="arrow-relation" />
          </defs>
          {layout.edges.map((edge, i) => (
            <Edge key={i} edge={edge} layout={layout} />
          ))}
          {[...layout.nodes.values()].map((node) => (
            <Node key={node.id} node={node} />
          ))}
        </svg>
      </div>
      <GraphAsText types={types} layout={layout} />
    </>
  );
}

function Arrow({ id }: { id: string }) {
  return (
    <marker id={id} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
      <path d="M 0 0 L 10 5 L 0 10 z" />
    </marker>
  );
}

function Node({ node }: { node: GraphNode }) {
  return (
    // A link, so that a node is reached and followed from the keyboard as well.
    <a href={href.type(node.id)}>
      <g
        class={`graph-node${node.id.startsWith("http://aps-standard.org/types/core/") ? " core" : ""}`}
        transform={`translate(${node.x} ${node.y})`}
      >
        <title>{node.id}</title>
        <rect width={node.width} height={node.height} rx="6" />
        <text x={node.width / 2} y={node.height / 2} text-anchor="middle" dominant-baseline="central">
          {node.name}
        </text>
      </g>
    </a>
  );
}

function Edge({ edge, layout }: { edge: GraphEdge; layout: GraphLayout }) {
  const a = layout.nodes.get(edge.from)!;
  const b = layout.nodes.get(edge.to)!;
  let d: string;
  if (a === b) {
    // A type related to itself: a loop on its right side.
    const x = a.x + a.width;
    const y = a.y + a.height / 2;
    d = `M ${x} ${y - 8} C ${x + 40} ${y - 30}, ${x + 40} ${y + 30}, ${x} ${y + 8}`;
  } else if (edge.kind === "implements") {
    // From the child's top up to the parent's bottom.
    const [x1, y1, x2, y2] = [a.x + a.width / 2, a.y, b.x + b.width / 2, b.y + b.height];
    const bend = Math.max(30, Math.abs(y1 - y2) / 2);
    d = `M ${x1} ${y1} C ${x1} ${y1 - bend}, ${x2} ${y2 + bend}, ${x2} ${y2}`;
  } else {
    // Centre to centre, bowed to one side so it does not run along an inheritance line.
    const [x1, y1, x2, y2] = [a.x + a.width / 2, a.y + a.height / 2, b.x + b.width / 2, b.y + b.height / 2];
    const [mx, my] = [(x1 + x2) / 2 + (y2 - y1) * 0.2, (y1 + y2) / 2 - (x2 - x1) * 0.2];
    d = `M ${x1} ${y1} Q ${mx} ${my}, ${x2} ${y2}`;
  }
  return (
    <path class={`graph-edge ${edge.kind}`} d={d} marker-end={`url(#arrow-${edge.kind})`}>
      <title>
        {edge.kind === "relation" ? `${edge.from} —${edge.name}→ ${edge.to}` : `${edge.from} implements ${edge.to}`}
      </title>
    </path>
  );
}

/** The graph as a list: each type with what it implements and what its relations link to. */
function GraphAsText({ types, layout }: { types: TypeMap; layout: GraphLayout }) {
  const name = (id: string) => types.get(id)?.name ?? id;
  return (
    <details class="graph-text">
      <summary>The graph as text</summary>
      <ul>
        {[...layout.nodes.values()].map((node) => {
          const out = layout.edges.filter((e) => e.from === node.id);
          return (
            <li key={node.id}>
              <a href={href.type(node.id)}>{node.name}</a>
              {out.length > 0 && ": "}
              {out.map((e, i) => (
                <span key={i}>
                  {i > 0 && "; "}
                  {e.kind === "implements" ? "implements " : `${e.name} → `}
                  {name(e.to)}
                </span>
              ))}
            </li>
          );
        })}
      </ul>
    </details>
  );
}

/** A point of the screen in the drawing's units. */
function toDrawing(svg: SVGSVGElement, clientX: number, clientY: number): { x: number; y: number } | undefined {
  const matrix = svg.getScreenCTM();
  if (!matrix) return undefined;
  const p = new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse());
  return { x: p.x, y: p.y };
}
