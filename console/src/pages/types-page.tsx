/** Every type the controller knows, each a link to its page, narrowed by a filter on id and name. */
import { useState } from "preact/hooks";
import { href } from "../routes.ts";
import { loadTypes } from "../load-types.ts";
import type { TypeInfo } from "../type-catalog.ts";
import { ColumnHeads, useLoad, WhenLoaded } from "../ui.tsx";

export default function TypesPage() {
  const types = useLoad(loadTypes, []);
  const [filter, setFilter] = useState("");
  return (
    <>
      <h1>Types</h1>
      <div class="toolbar">
        <label for="type-filter">Filter types</label>
        <input
          id="type-filter"
          type="search"
          value={filter}
          onInput={(e) => setFilter(e.currentTarget.value)}
          placeholder="id or name"
        />
      </div>
      <WhenLoaded loaded={types}>
        {(all) => (
          <TypeTable
            types={[...all.values()]}
            filter={filter}
            names={new Map([...all.values()].map((t) => [t.id, t.name]))}
          />
        )}
      </WhenLoaded>
    </>
  );
}

function TypeTable({
  types,
  filter,
  names,
}: {
  types: TypeInfo[];
  filter: string;
  names: ReadonlyMap<string, string>;
}) {
  const needle = filter.trim().toLowerCase();
  const shown = types
    .filter((t) => !needle || t.id.toLowerCase().includes(needle) || t.name.toLowerCase().includes(needle))
    .sort((a, b) => a.id.localeCompare(b.id));
  return (
    <>
      <p class="muted" role="status">
        {shown.length === types.length ? `${types.length} types` : `${shown.length} of ${types.length} types`}
      </p>
      <table>
        <ColumnHeads names={["Id", "Name", "Implements"]} />
        <tbody>
          {shown.map((t) => (
            <tr key={t.id}>
              <td>
                <a href={href.type(t.id)}>{t.id}</a>
              </td>
              <td>{t.name}</td>
              <td>{(t.implements ?? []).map((p) => names.get(p) ?? p).join(", ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
