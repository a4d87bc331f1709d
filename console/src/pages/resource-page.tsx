/**
 * One resource (`#/resource/<id>`): its properties, its `aps` metadata, its links both ways
 * (`GET /aps/2/resources/<id>/aps/links`, docs/aps/relations.md), the events it subscribes to,
 * the configure form and a form per custom operation, compiled from the type's declaration, and
 * unprovisioning after a confirmation dialog (docs/aps/lifecycle.md). Values are shown as text,
 * never as HTML.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { LinkInfo } from "../../../runtime/common/link-info.ts";
import type { Subscription } from "../../../runtime/common/subscription.ts";
import type { ApsResource } from "../../../runtime/common/types.ts";
import { linkRefId } from "../../../runtime/common/link-ref.ts";
import { ApsError, callJson, callRaw, getJson, segment } from "../api.ts";
import { OperationCall } from "./operation-call.tsx";
import { CompiledForm } from "../forms/compiled-form.tsx";
import { customOperations, type ResolvedDecl } from "../forms/declaration.ts";
import { configureForm } from "../forms/form-model.ts";
import { operationBase } from "../forms/operation-request.ts";
import { changedValues, initialState } from "../forms/form-state.ts";
import { loadType } from "../forms/type-loader.ts";
import { validateChanges } from "../forms/validate-form.ts";
import { href } from "../routes.ts";
import { ColumnHeads, ErrorMessage, useLoad, valueText, WhenLoaded } from "../ui.tsx";

export default function ResourcePage({ id }: { id: string }) {
  const resource = useLoad(async () => {
    const r = await getJson<ApsResource>(`/aps/2/resources/${segment(id)}`);
    return { resource: r, type: await loadType(r.aps.type) };
  }, [id]);
  return (
    <>
      <h1 class="mono">{id}</h1>
      <WhenLoaded loaded={resource}>
        {({ resource: r, type }) => <ResourceView resource={r} type={type} reload={resource.reload} />}
      </WhenLoaded>
    </>
  );
}

function ResourceView({ resource, type, reload }: { resource: ApsResource; type: ResolvedDecl; reload: () => void }) {
  const [open, setOpen] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const operations = customOperations(type).filter((op) => !op.decl.static);
  const toggle = (name: string) => setOpen((o) => (o === name ? undefined : name));
  return (
    <>
      <p class="muted">
        {`${type.name} · `}
        <a class="mono" href={href.resources(type.id)}>
          {type.id}
        </a>
      </p>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      <div class="toolbar">
        <button type="button" aria-expanded={open === "configure"} onClick={() => toggle("configure")}>
          Configure
        </button>
        {operations.map((op) => (
          <button
            key={op.name}
            type="button"
            class="secondary"
            aria-expanded={open === `op:${op.name}`}
            onClick={() => toggle(`op:${op.name}`)}
          >
            {op.name}
          </button>
        ))}
        <Unprovision resource={resource} />
      </div>
      {open === "configure" && (
        <section aria-labelledby="configure-heading">
          <h2 id="configure-heading">Configure</h2>
          <ConfigureForm
            resource={resource}
            type={type}
            done={() => {
              setOpen(undefined);
              setNotice("Saved.");
              reload();
            }}
          />
        </section>
      )}
      {open?.startsWith("op:") && (
        <OperationCall
          key={open}
          type={type}
          name={open.slice(3)}
          base={operationBase({ resource: resource.aps.id })}
        />
      )}
      <Properties resource={resource} type={type} />
      <Metadata resource={resource} />
      <Links resource={resource} type={type} />
      <Subscriptions resource={resource} />
    </>
  );
}

function Properties({ resource, type }: { resource: ApsResource; type: ResolvedDecl }) {
  // Declared properties first, in declaration order, then anything else the resource holds.
  const names = [
    ...type.properties.keys(),
    ...Object.keys(resource).filter((k) => k !== "aps" && !type.properties.has(k) && !type.relations.has(k)),
  ];
  return (
    <section aria-labelledby="properties-heading">
      <h2 id="properties-heading">Properties</h2>
      <table class="properties">
        <ColumnHeads names={["Name", "Value", "From"]} />
        <tbody>
          {names.map((name) => {
            const declared = type.properties.get(name);
            const from = declared?.from;
            // The controller leaves encrypted values out of what it answers (docs/aps/resources.md, "Encrypted properties").
            const hidden = declared?.decl.encrypted && resource[name] === undefined;
            return (
              <tr key={name}>
                <th scope="row" class="mono">
                  {name}
                </th>
                <td class="value">
                  {hidden ? (
                    <span class="muted">(encrypted, not shown)</span>
                  ) : resource[name] === undefined ? (
                    <span class="muted">not set</span>
                  ) : (
                    valueText(resource[name])
                  )}
                </td>
                <td class="muted mono">{from && from !== type.id ? from : ""}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

function Metadata({ resource }: { resource: ApsResource }) {
  const aps = resource.aps as unknown as Record<string, unknown>;
  return (
    <section aria-labelledby="metadata-heading">
      <h2 id="metadata-heading">Metadata</h2>
      <dl class="metadata">
        {Object.entries(aps).map(([key, value]) => (
          <div key={key}>
            <dt class="mono">{key}</dt>
            <dd class="mono">
              {key === "type" && typeof value === "string" ? <a href={href.type(value)}>{value}</a> : valueText(value)}
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/**
 * Links both ways: `GET .../aps/links` lists the resource's own relations and the relations of
 * others pointing at it. Where that is refused, the relations the resource itself holds.
 */
function Links({ resource, type }: { resource: ApsResource; type: ResolvedDecl }) {
  const links = useLoad(async (): Promise<{ links: LinkInfo[]; fallback?: string }> => {
    try {
      return { links: await getJson<LinkInfo[]>(`/aps/2/resources/${segment(resource.aps.id)}/aps/links`) };
    } catch (error) {
      const own: LinkInfo[] = [];
      for (const [name, r] of type.relations) {
        const value = resource[name];
        for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
          const id = linkRefId(v);
          if (id)
            own.push({
              relation: name,
              kind: r.decl.collection ? "collection" : r.decl.required ? "strong" : "weak",
              direction: "out",
              id,
              href: `/aps/2/resources/${id}`,
            });
        }
      }
      return { links: own, fallback: error instanceof Error ? error.message : String(error) };
    }
  }, [resource.aps.id, resource.aps.revision]);
  return (
    <section aria-labelledby="links-heading">
      <h2 id="links-heading">Links</h2>
      <WhenLoaded loaded={links}>
        {({ links: list, fallback }) => (
          <>
            {fallback && (
              <p class="muted">Links to this resource could not be listed ({fallback}); its own relations:</p>
            )}
            {list.length === 0 ? (
              <p class="muted">No links.</p>
            ) : (
              <table class="links">
                <ColumnHeads names={["Direction", "Relation", "Kind", "Resource"]} />
                <tbody>
                  {list.map((l) => (
                    <tr key={`${l.direction}:${l.relation}:${l.id}`}>
                      <td>{l.direction === "out" ? "to" : "from"}</td>
                      <td class="mono">{l.relation}</td>
                      <td>{l.kind}</td>
                      <td class="mono">
                        <a href={href.resource(l.id)}>{l.id}</a>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </WhenLoaded>
    </section>
  );
}

/** The event subscriptions this resource holds as subscriber (docs/aps/events.md, "Subscribing"). */
function Subscriptions({ resource }: { resource: ApsResource }) {
  const subs = useLoad(
    (): Promise<{ list: Subscription[]; error?: Error }> =>
      getJson<Subscription[]>(`/aps/2/resources/${segment(resource.aps.id)}/aps/subscriptions`).then(
        (list) => ({ list }),
        (error: Error) => ({ list: [], error }),
      ),
    [resource.aps.id],
  );
  return (
    <section aria-labelledby="subscriptions-heading">
      <h2 id="subscriptions-heading">Subscriptions</h2>
      <WhenLoaded loaded={subs}>
        {({ list, error }) =>
          error ? (
            <p class="muted">{`Its subscriptions could not be listed: ${error.message}`}</p>
          ) : list.length === 0 ? (
            <p class="muted">It subscribes to no events.</p>
          ) : (
            <table class="subscriptions">
              <ColumnHeads names={["Event", "Source", "Relation", "Handler"]} />
              <tbody>
                {list.map((s) => (
                  <tr key={s.id}>
                    <td class="mono">{s.event}</td>
                    <td class="mono">
                      {"id" in s.source ? (
                        <a href={href.resource(s.source.id)}>{s.source.id}</a>
                      ) : (
                        <a href={href.resources(s.source.type)}>{s.source.type}</a>
                      )}
                    </td>
                    <td class="mono">{s.relation ?? ""}</td>
                    <td class="mono">{s.handler}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </WhenLoaded>
    </section>
  );
}

/** The configure form: sends only what changed (an emptied value as null), `PUT /aps/2/resources/<id>`. */
function ConfigureForm({ resource, type, done }: { resource: ApsResource; type: ResolvedDecl; done: () => void }) {
  const model = configureForm(type);
  const initial = initialState(model, resource);
  return (
    <CompiledForm
      id="configure"
      model={model}
      initial={initial}
      submitLabel="Save"
      check={(state) => validateChanges(model, changedValues(model, initial, state))}
      send={async (state) => {
        await callJson({
          method: "PUT",
          path: `/aps/2/resources/${segment(resource.aps.id)}`,
          json: changedValues(model, initial, state),
        });
        done();
      }}
    />
  );
}

/** "Unprovision", confirmed in a modal dialog whose own button is "Unprovision" too. */
function Unprovision({ resource }: { resource: ApsResource }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [error, setError] = useState<Error>();
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await callRaw({ method: "DELETE", path: `/aps/2/resources/${segment(resource.aps.id)}` });
      setOpen(false);
      location.hash = href.resources(resource.aps.type);
    } catch (e) {
      setError(e instanceof ApsError || e instanceof Error ? e : new Error(String(e)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class="danger" onClick={() => setOpen(true)}>
        Unprovision
      </button>
      <dialog ref={dialog} aria-labelledby="unprovision-title" onClose={() => setOpen(false)}>
        <h2 id="unprovision-title">Unprovision this resource?</h2>
        <p>
          {"The controller asks the application to remove "}
          <span class="mono">{resource.aps.id}</span>
          {" and then forgets it. This cannot be undone."}
        </p>
        {error && <ErrorMessage error={error} />}
        <div class="form-actions">
          <button type="button" class="danger" disabled={busy} onClick={confirm}>
            Unprovision
          </button>
          <button type="button" class="secondary" onClick={() => setOpen(false)}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}
