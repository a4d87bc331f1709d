/**
 * Resources of one type (`#/resources/<type id>?q=<rql>`): an RQL filter box completing the
 * type's property names (docs/aps/rql.md), a table sorted by clicking a column header (RQL
 * `sort()`), paged with `limit()` and Previous/Next, each row's first cell a link to the resource.
 * The type's static custom operations are called from here too. Without a type (`#/resources`):
 * the resource types to choose from.
 */
import { useState } from "preact/hooks";
import type { ApsResource } from "../../../runtime/common/types.ts";
import type { TypeInfo } from "../../../runtime/common/type-info.ts";
import { getJson, getPage } from "../api.ts";
import { loadType } from "../forms/type-loader.ts";
import { customOperations, type ResolvedDecl } from "../forms/declaration.ts";
import { operationBase } from "../forms/operation-request.ts";
import { OperationCall } from "./operation-call.tsx";
import { href } from "../routes.ts";
import { completions, listQuery, PAGE_SIZE, type Sort } from "./list-query.ts";
import { useLoad, valueText, WhenLoaded } from "../ui.tsx";

const RESOURCE_TYPE = "http://aps-standard.org/types/core/resource/1.0";
/** Columns besides the id: the first scalar properties of the type (not encrypted ones). */
const MAX_COLUMNS = 5;

export default function ResourcesPage({ typeId, query }: { typeId: string; query: string }) {
  if (!typeId) return <TypeChoice />;
  return <TypeResources typeId={typeId} query={query} />;
}

/** The types that can have resources, each a link to its list. */
function TypeChoice() {
  const types = useLoad(() => getJson<TypeInfo[]>("/aps/2/types", `implementing(${RESOURCE_TYPE})`), []);
  return (
    <>
      <h1>Resources</h1>
      <p>Choose a type.</p>
      <WhenLoaded loaded={types}>
        {(list) => (
          <ul class="plain-list">
            {/* The packages' own types first, then the core types (accounts, users, subscriptions...). */}
            {[...list]
              .sort((a, b) => Number(isCore(a.id)) - Number(isCore(b.id)) || a.name.localeCompare(b.name))
              .map((t) => (
                <li key={t.id}>
                  <a href={href.resources(t.id)}>{t.name}</a> <span class="muted mono">{t.id}</span>
                </li>
              ))}
          </ul>
        )}
      </WhenLoaded>
    </>
  );
}

/** Whether a type is one of the core types every controller knows. */
function isCore(id: string): boolean {
  return id.startsWith("http://aps-standard.org/types/core/") || id.startsWith("http://parallels.com/aps/types/");
}

function TypeResources({ typeId, query }: { typeId: string; query: string }) {
  const type = useLoad(() => loadType(typeId), [typeId]);
  return <WhenLoaded loaded={type}>{(t) => <ResourceList type={t} query={query} />}</WhenLoaded>;
}

function ResourceList({ type, query }: { type: ResolvedDecl; query: string }) {
  const [operation, setOperation] = useState<string>();
  const statics = customOperations(type).filter((op) => op.decl.static);
  const [draft, setDraft] = useState(query);
  const [sort, setSort] = useState<Sort>();
  const [start, setStart] = useState(0);
  const page = useLoad(
    () => getPage<ApsResource>("/aps/2/resources", listQuery(type.id, query, sort, start)),
    [type.id, query, sort?.key, sort?.descending, start],
  );
  const columns = [...type.properties.values()]
    .filter((p) => ["string", "integer", "number", "boolean"].includes(p.decl.type ?? "string") && !p.decl.encrypted)
    .slice(0, MAX_COLUMNS)
    .map((p) => p.name);
  const names = [...type.properties.keys(), ...type.relations.keys(), "aps.id", "aps.status", "aps.type"];
  const listId = "rql-property-names";
  const sortBy = (key: string) => {
    setSort((s) => (s?.key === key ? { key, descending: !s.descending } : { key, descending: false }));
    setStart(0);
  };
  const header = (key: string, label: string) => {
    const active = sort?.key === key;
    return (
      <th key={key} scope="col" aria-sort={active ? (sort.descending ? "descending" : "ascending") : "none"}>
        <button type="button" class="sort" onClick={() => sortBy(key)}>
          {label}
          <span aria-hidden="true">{active ? (sort.descending ? " ▼" : " ▲") : ""}</span>
        </button>
      </th>
    );
  };
  return (
    <>
      <h1>{type.name}</h1>
      <p class="muted mono">{type.id}</p>
      <div class="toolbar">
        <a class="button" href={href.provision(type.id)}>
          Provision
        </a>
        {statics.map((op) => (
          <button
            key={op.name}
            type="button"
            class="secondary"
            aria-expanded={operation === op.name}
            onClick={() => setOperation(operation === op.name ? undefined : op.name)}
          >
            {op.name}
          </button>
        ))}
      </div>
      {operation && (
        <OperationCall key={operation} type={type} name={operation} base={operationBase({ type: type.id })} />
      )}
      <form
        class="rql-filter"
        onSubmit={(e) => {
          e.preventDefault();
          setStart(0);
          location.hash = href.resources(type.id, draft.trim());
        }}
      >
        <label for="rql-filter">RQL filter</label>
        <input
          id="rql-filter"
          type="text"
          class="mono"
          list={listId}
          value={draft}
          placeholder="eq(name,alice)&gt(quota,10)"
          autocomplete="off"
          spellcheck={false}
          aria-describedby="rql-filter-hint"
          onInput={(e) => setDraft((e.currentTarget as HTMLInputElement).value)}
        />
        <datalist id={listId}>
          {completions(draft, names).map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
        <button type="submit">Apply</button>
        <div class="hint" id="rql-filter-hint">
          Resource Query Language: eq, ne, lt, gt, like, in, and, or, not. Property names: {names.join(", ")}.
        </div>
      </form>
      <WhenLoaded loaded={page}>
        {(p) => {
          const first = p.range.first ?? start;
          const last = p.range.last ?? first + p.items.length - 1;
          return (
            <>
              <table class="resources">
                <caption class="muted">
                  {p.items.length ? `Resources ${first + 1}–${last + 1} of ${p.range.total}` : "No resources match."}
                </caption>
                <thead>
                  <tr>
                    {header("aps.id", "id")}
                    {columns.map((c) => header(c, c))}
                    {header("aps.status", "status")}
                  </tr>
                </thead>
                <tbody>
                  {p.items.map((r) => (
                    <tr key={r.aps.id}>
                      <td class="mono">
                        <a href={href.resource(r.aps.id)}>{r.aps.id}</a>
                      </td>
                      {columns.map((c) => (
                        <td key={c}>{valueText(r[c])}</td>
                      ))}
                      <td>{r.aps.status ?? ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <div class="pager">
                <button
                  type="button"
                  class="secondary"
                  disabled={start === 0}
                  onClick={() => setStart(Math.max(0, start - PAGE_SIZE))}
                >
                  Previous
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={last + 1 >= p.range.total}
                  onClick={() => setStart(start + PAGE_SIZE)}
                >
                  Next
                </button>
              </div>
            </>
          );
        }}
      </WhenLoaded>
    </>
  );
}
