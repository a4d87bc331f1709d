/**
 * One type: its name and id, what it implements and what implements it, and its members (own and
 * inherited, the inherited ones naming the type they come from), then its structures.
 */
import { jsonText } from "../../../runtime/client/json.ts";
import { href } from "../routes.ts";
import { loadTypes } from "../load-types.ts";
import {
  ancestorsOf,
  childrenOf,
  membersOf,
  propertyAttributes,
  type Member,
  type TypeInfo,
  type TypeMap,
} from "../type-catalog.ts";
import { ColumnHeads, useLoad, valueText, WhenLoaded } from "../ui.tsx";
import MissingType from "./missing-type.tsx";

export default function TypePage({ typeId }: { typeId: string }) {
  const types = useLoad(loadTypes, []);
  return (
    <WhenLoaded loaded={types}>
      {(all) => (all.has(typeId) ? <TypeView types={all} type={all.get(typeId)!} /> : <MissingType typeId={typeId} />)}
    </WhenLoaded>
  );
}

function TypeView({ types, type }: { types: TypeMap; type: TypeInfo }) {
  const members = membersOf(types, type.id);
  const ancestors = ancestorsOf(types, type.id);
  const children = childrenOf(types, type.id);
  const isResource = type.id === RESOURCE_TYPE || ancestors.includes(RESOURCE_TYPE);
  return (
    <>
      <h1>{type.name}</h1>
      <p>
        <code>{type.id}</code>
      </p>
      {isResource && (
        <p class="toolbar">
          <a href={href.resources(type.id)}>Resources of this type</a>
        </p>
      )}
      <dl class="facts">
        <dt>Implements</dt>
        <dd>{ancestors.length ? <TypeLinks types={types} ids={ancestors} /> : "nothing"}</dd>
        <dt>Implemented by</dt>
        <dd>{children.length ? <TypeLinks types={types} ids={children.map((c) => c.id)} /> : "no type"}</dd>
      </dl>
      <h2 id="members">Members</h2>
      {members.length ? (
        <MemberTable types={types} members={members} />
      ) : (
        <p>It declares and inherits no property, relation or operation.</p>
      )}
      <Structures type={type} />
      <h2 id="declaration">Declaration</h2>
      <details>
        <summary>The type as the controller serves it (GET /aps/2/types/…), JSON</summary>
        <pre class="declaration">{jsonText(type, 2)}</pre>
      </details>
    </>
  );
}

/** The core Resource type: types that implement it have resources. */
const RESOURCE_TYPE = "http://aps-standard.org/types/core/resource/1.0";

function TypeLinks({ types, ids }: { types: TypeMap; ids: readonly string[] }) {
  return (
    <ul class="inline-list">
      {ids.map((id) => (
        <li key={id}>
          <a href={href.type(id)} title={id}>
            {types.get(id)?.name ?? id}
          </a>
        </li>
      ))}
    </ul>
  );
}

const KIND_LABEL: Readonly<Record<Member["kind"], string>> = {
  property: "property",
  relation: "relation",
  operation: "operation",
};

function MemberTable({ types, members }: { types: TypeMap; members: readonly Member[] }) {
  return (
    <table aria-labelledby="members">
      <ColumnHeads names={["Name", "Type", "Attributes", "From"]} />
      <tbody>
        {members.map((m) => (
          <tr key={`${m.kind}:${m.name}`} class={m.from ? "inherited" : undefined}>
            <th scope="row">{m.name}</th>
            <td>
              {m.linksTo ? (
                <a href={href.type(m.linksTo)} title={m.linksTo}>
                  {types.get(m.linksTo)?.name ?? m.linksTo}
                </a>
              ) : m.structure && types.has(m.structure.typeId) ? (
                <>
                  {m.structure.array ? "array of " : ""}
                  <code>{m.structure.name}</code> of{" "}
                  <a href={href.type(m.structure.typeId)} title={m.type}>
                    {types.get(m.structure.typeId)!.name}
                  </a>
                </>
              ) : (
                <code>{m.type}</code>
              )}
            </td>
            <td>
              <span class="tag kind">{KIND_LABEL[m.kind]}</span>
              {m.attributes.map((a) => (
                <span key={a} class="tag">
                  {a}
                </span>
              ))}
            </td>
            <td>
              {m.from && (
                <a href={href.type(m.from)} title={m.from}>
                  {types.get(m.from)?.name ?? m.from}
                </a>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The type's structures (named object types its members use), each with its properties. */
function Structures({ type }: { type: TypeInfo }) {
  const structures = Object.entries(type.structures ?? {});
  if (!structures.length) return null;
  return (
    <>
      <h2>Structures</h2>
      {structures.map(([name, value]) => {
        const properties = Object.entries(
          ((value ?? {}) as { properties?: Record<string, Record<string, unknown>> }).properties ?? {},
        );
        return (
          <section key={name} aria-labelledby={`structure-${name}`}>
            <h3 id={`structure-${name}`}>{name}</h3>
            <ul>
              {properties.map(([property, d]) => {
                const attributes = propertyAttributes(d ?? {});
                return (
                  <li key={property}>
                    <code>{property}</code>: {valueText(d?.type)}
                    {attributes.length ? ` (${attributes.join("; ")})` : ""}
                  </li>
                );
              })}
            </ul>
          </section>
        );
      })}
    </>
  );
}
