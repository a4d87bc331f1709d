/**
 * Applications (`#/applications`): packages (`/aps/2/packages`, with upload of an `.app.zip` and
 * its progress) and application instances (`/aps/2/instances`: install from a form compiled from
 * the application root type's settings plus the endpoint and its CA, re-issue an instance's
 * certificate). See docs/applications.md.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { EndpointHealth, InstanceInfo } from "../../../runtime/common/instance-info.ts";
import type { PackageInfo } from "../../../runtime/common/package-info.ts";
import type { TypeInfo } from "../../../runtime/common/type-info.ts";
import { callJson, getJson, segment } from "../api.ts";
import { CompiledForm } from "../forms/compiled-form.tsx";
import { settingsForm } from "../forms/form-model.ts";
import { installForm, settingsErrors } from "../forms/install-form.ts";
import { formValues, initialState } from "../forms/form-state.ts";
import { forgetTypes, loadType } from "../forms/type-loader.ts";
import { href } from "../routes.ts";
import { storedToken } from "../token.ts";
import { ColumnHeads, ErrorMessage, useLoad, WhenLoaded } from "../ui.tsx";

const APPLICATION_TYPE = "http://aps-standard.org/types/core/application/1.0";

export default function ApplicationsPage() {
  const packages = useLoad(() => getJson<PackageInfo[]>("/aps/2/packages"), []);
  const instances = useLoad(() => getJson<InstanceInfo[]>("/aps/2/instances"), []);
  // Application root types: a package with one can be installed (again after an upload).
  const roots = useLoad(
    () => getJson<TypeInfo[]>("/aps/2/types", `implementing(${APPLICATION_TYPE})`),
    [packages.value],
  );
  const rootOf = (p: PackageInfo): string | undefined => p.types.find((t) => roots.value?.some((r) => r.id === t));
  const [installing, setInstalling] = useState<string>();
  const [installedNotice, setInstalledNotice] = useState<string>();
  return (
    <>
      <h1>Applications</h1>
      <section aria-labelledby="packages-heading">
        <h2 id="packages-heading">Packages</h2>
        <Upload
          uploaded={() => {
            forgetTypes();
            packages.reload();
          }}
        />
        {roots.error && <ErrorMessage error={roots.error} />}
        <WhenLoaded loaded={packages}>
          {(list) => (
            <PackageTable packages={list} installable={(p) => rootOf(p) !== undefined} install={setInstalling} />
          )}
        </WhenLoaded>
      </section>
      <section aria-labelledby="instances-heading">
        <h2 id="instances-heading">Instances</h2>
        {installing && packages.value && (
          <Install
            packages={packages.value.filter((p) => rootOf(p) !== undefined)}
            chosen={installing}
            choose={setInstalling}
            rootOf={rootOf}
            close={() => setInstalling(undefined)}
            installed={(id) => {
              setInstalling(undefined);
              setInstalledNotice(`Installed instance ${id}.`);
              instances.reload();
            }}
          />
        )}
        {installedNotice && (
          <p class="notice" role="status">
            {installedNotice}
          </p>
        )}
        <WhenLoaded loaded={instances}>
          {(list) => <InstanceTable instances={list} packages={packages.value ?? []} />}
        </WhenLoaded>
      </section>
    </>
  );
}

/** What an upload is doing: sending (bytes so far), compiling on the server, or done. */
type UploadState =
  | { readonly phase: "idle" }
  | { readonly phase: "zipping" }
  | { readonly phase: "sending"; readonly loaded: number; readonly total: number }
  | { readonly phase: "compiling" }
  | { readonly phase: "done"; readonly message: string }
  | { readonly phase: "failed"; readonly message: string; readonly details: readonly string[] };

/**
 * Uploads an `.app.zip`, or a package folder zipped in the browser (package-folder.ts), with
 * `XMLHttpRequest`, whose upload events give the progress `fetch` does not:
 * `POST /aps/2/packages`, `Content-Type: application/zip`, the token as `APS-Token`.
 */
function Upload({ uploaded }: { uploaded: () => void }) {
  // What Upload sends: the archive chosen, or the folder chosen (zipped in the browser when sent).
  const [source, setSource] = useState<{ kind: "file"; file: File } | { kind: "folder"; files: File[] }>();
  const [state, setState] = useState<UploadState>({ phase: "idle" });
  const busy = state.phase === "sending" || state.phase === "compiling" || state.phase === "zipping";
  const send = (body: Blob, label: string) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/aps/2/packages");
    xhr.setRequestHeader("Content-Type", "application/zip");
    xhr.setRequestHeader("Accept", "application/json");
    const token = storedToken();
    if (token) xhr.setRequestHeader("APS-Token", token);
    xhr.setRequestHeader(
      "X-Package-Name",
      label.replace(/\.app\.zip$|\.zip$/i, "").replace(/[^\w.-]/g, "_") || "upload",
    );
    xhr.upload.onprogress = (p) =>
      setState({ phase: "sending", loaded: p.loaded, total: p.lengthComputable ? p.total : body.size });
    // Every byte is sent: the controller now checks and compiles the package.
    xhr.upload.onload = () => setState({ phase: "compiling" });
    xhr.onerror = () => setState({ phase: "failed", message: "The upload did not reach the controller.", details: [] });
    xhr.onload = () => {
      let reply: {
        name?: string;
        version?: string;
        release?: string;
        message?: string;
        details?: { message?: string }[];
      } = {};
      try {
        reply = JSON.parse(xhr.responseText) as typeof reply;
      } catch {
        reply = { message: xhr.responseText };
      }
      if (xhr.status === 201) {
        setState({
          phase: "done",
          message: `Imported ${reply.name ?? label} ${reply.version ?? ""}${reply.release ? `-${reply.release}` : ""}.`,
        });
        uploaded();
      } else {
        setState({
          phase: "failed",
          message: `${xhr.status}: ${reply.message ?? xhr.statusText}`,
          details: (reply.details ?? []).map((d) => String(d.message ?? "")),
        });
      }
    };
    setState({ phase: "sending", loaded: 0, total: body.size });
    xhr.send(body);
  };
  const start = async (e: Event) => {
    e.preventDefault();
    if (!source || busy) return;
    if (source.kind === "file") return send(source.file, source.file.name);
    setState({ phase: "zipping" });
    try {
      const files = await Promise.all(
        source.files.map(async (f) => ({
          path: f.webkitRelativePath || f.name,
          data: new Uint8Array(await f.arrayBuffer()),
        })),
      );
      // Loaded on first use: most uploads are archives.
      const { folderArchive, folderName } = await import("./package-folder.ts");
      send(new Blob([folderArchive(files) as Uint8Array<ArrayBuffer>], { type: "application/zip" }), folderName(files));
    } catch (error) {
      setState({
        phase: "failed",
        message: `The folder could not be packed: ${(error as Error).message}`,
        details: [],
      });
    }
  };
  return (
    <form class="upload" onSubmit={start}>
      <label for="package-file">Package file</label>
      <input
        id="package-file"
        type="file"
        accept=".zip,application/zip"
        onChange={(e) => {
          const file = (e.currentTarget as HTMLInputElement).files?.[0];
          setSource(file ? { kind: "file", file } : undefined);
        }}
      />
      <label for="package-folder">Package folder</label>
      {/* webkitdirectory: every file below the folder chosen (all current browsers support it). */}
      <input
        id="package-folder"
        type="file"
        {...{ webkitdirectory: true }}
        multiple
        onChange={(e) => {
          const files = [...((e.currentTarget as HTMLInputElement).files ?? [])];
          setSource(files.length ? { kind: "folder", files } : undefined);
        }}
      />
      <button type="submit" disabled={!source || busy}>
        Upload
      </button>
      {state.phase === "zipping" && (
        <p class="muted" role="status">
          Packing the folder…
        </p>
      )}
      {state.phase === "sending" && (
        <div class="progress-line">
          <label for="upload-progress">Uploading</label>
          <progress id="upload-progress" max={state.total || 1} value={state.loaded} />
          <span class="muted">{`${Math.round((100 * state.loaded) / (state.total || 1))} %`}</span>
        </div>
      )}
      {state.phase === "compiling" && (
        <div class="progress-line" role="status">
          <label for="upload-progress">Checking and compiling the package</label>
          <progress id="upload-progress" />
        </div>
      )}
      {state.phase === "done" && (
        <p class="notice" role="status">
          {state.message}
        </p>
      )}
      {state.phase === "failed" && (
        <div class="error" role="alert">
          <p>{state.message}</p>
          {state.details.length > 0 && (
            <ul>
              {state.details.map((d, i) => (
                <li key={i} class="mono">
                  {d}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </form>
  );
}

function PackageTable({
  packages,
  installable,
  install,
}: {
  packages: readonly PackageInfo[];
  installable: (p: PackageInfo) => boolean;
  install: (id: string) => void;
}) {
  if (packages.length === 0) return <p class="muted">No packages yet.</p>;
  return (
    <table class="packages">
      <ColumnHeads names={["Name", "Version", "Origin", "Types and services", "Id", "Instances"]} />
      <tbody>
        {packages.map((p) => (
          <tr key={p.id}>
            <td>{p.name}</td>
            <td class="mono">{`${p.version}${p.release ? `-${p.release}` : ""}`}</td>
            <td>{p.origin}</td>
            <td>
              <details>
                <summary>{`${p.types.length} types, ${Object.keys(p.services).length} services`}</summary>
                <ul class="plain-list">
                  {p.types.map((t) => (
                    <li key={t}>
                      <a class="mono" href={href.type(t)}>
                        {t}
                      </a>
                    </li>
                  ))}
                </ul>
                <ul class="plain-list">
                  {Object.entries(p.services).map(([service, s]) => (
                    <li key={service}>
                      <span class="mono">{service}</span>
                      {": "}
                      <a href={href.resources(s.type)}>resources</a>
                    </li>
                  ))}
                </ul>
              </details>
            </td>
            <td class="mono">{p.id}</td>
            <td>
              {installable(p) && (
                <button type="button" class="small" onClick={() => install(p.id)}>
                  Install
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The install form of a chosen package: its root type's settings, the endpoint and its CA. */
function Install({
  packages,
  chosen,
  choose,
  rootOf,
  close,
  installed,
}: {
  packages: readonly PackageInfo[];
  chosen: string;
  choose: (id: string) => void;
  rootOf: (p: PackageInfo) => string | undefined;
  close: () => void;
  installed: (id: string) => void;
}) {
  const pkg = packages.find((p) => p.id === chosen);
  const rootId = pkg && rootOf(pkg);
  const root = useLoad(async () => (rootId ? loadType(rootId) : undefined), [rootId]);
  const panel = useRef<HTMLDivElement>(null);
  // Opened from a package's row: the form is further down the page, so focus goes there.
  useEffect(() => panel.current?.querySelector<HTMLElement>("select, input")?.focus(), [chosen]);
  return (
    <div class="install" id="install-panel" ref={panel}>
      <h3>Install an instance</h3>
      <div class="field">
        <label for="install-package">Package</label>
        <select
          id="install-package"
          value={chosen}
          onChange={(e) => choose((e.currentTarget as HTMLSelectElement).value)}
        >
          {packages.map((p) => (
            <option key={p.id} value={p.id}>{`${p.name} ${p.version}${p.release ? `-${p.release}` : ""}`}</option>
          ))}
        </select>
      </div>
      {pkg && (
        <WhenLoaded loaded={root}>
          {(type) => {
            if (!type) return null;
            const model = installForm(settingsForm(type), type.name);
            return (
              <CompiledForm
                key={`${pkg.id}:${type.id}`}
                id="install"
                model={model}
                initial={initialState(model)}
                submitLabel="Install"
                send={async (state) => {
                  let created: InstanceInfo;
                  try {
                    created = await callJson<InstanceInfo>({
                      method: "POST",
                      path: "/aps/2/instances",
                      json: { package: pkg.id, ...formValues(model, state) },
                    });
                  } catch (error) {
                    throw settingsErrors(error);
                  }
                  installed(created.id);
                }}
                extra={
                  <button type="button" class="secondary" onClick={close}>
                    Close
                  </button>
                }
              />
            );
          }}
        </WhenLoaded>
      )}
    </div>
  );
}

function InstanceTable({
  instances,
  packages,
}: {
  instances: readonly InstanceInfo[];
  packages: readonly PackageInfo[];
}) {
  const [notice, setNotice] = useState<{ ok: boolean; text: string }>();
  const [busy, setBusy] = useState<string>();
  const [health, setHealth] = useState<ReadonlyMap<string, string>>(new Map());
  const check = async (id: string) => {
    setBusy(id);
    try {
      const h = await getJson<EndpointHealth>(`/aps/2/instances/${segment(id)}/health`);
      setHealth((was) => new Map(was).set(id, healthText(h)));
    } catch (error) {
      setHealth((was) => new Map(was).set(id, `not checked: ${(error as Error).message}`));
    } finally {
      setBusy(undefined);
    }
  };
  const reissue = async (id: string) => {
    setBusy(id);
    try {
      await callJson({ method: "POST", path: `/aps/2/instances/${segment(id)}/credentials` });
      setNotice({ ok: true, text: `Issued a new certificate to instance ${id} and handed it to its endpoint.` });
    } catch (error) {
      setNotice({ ok: false, text: `Instance ${id}: ${(error as Error).message}` });
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <>
      {notice && (
        <p class={notice.ok ? "notice" : "error"} role={notice.ok ? "status" : "alert"}>
          {notice.text}
        </p>
      )}
      {instances.length === 0 ? (
        <p class="muted">No instances installed.</p>
      ) : (
        <table class="instances">
          <ColumnHeads
            names={[
              "Instance",
              "Package",
              "Endpoint",
              "Status",
              "Root resource",
              "Installed",
              "Endpoint health",
              "Certificate",
            ]}
          />
          <tbody>
            {instances.map((i) => {
              const p = packages.find((x) => x.id === i.package);
              return (
                <tr key={i.id}>
                  <td class="mono">{i.id}</td>
                  <td>{p ? `${p.name} ${p.version}${p.release ? `-${p.release}` : ""}` : i.package}</td>
                  <td class="mono">{i.endpoint}</td>
                  <td>{i.status}</td>
                  <td class="mono">
                    {i.rootResource ? <a href={href.resource(i.rootResource)}>{i.rootResource}</a> : ""}
                  </td>
                  <td>{i.created}</td>
                  <td>
                    <span class="endpoint-health" role="status">
                      {health.get(i.id) ?? ""}
                    </span>{" "}
                    <button type="button" class="secondary small" disabled={busy === i.id} onClick={() => check(i.id)}>
                      Check endpoint
                    </button>
                  </td>
                  <td>
                    <span class="cert-expiry">{certificateExpiry(i)}</span>{" "}
                    <button
                      type="button"
                      class="secondary small"
                      disabled={busy === i.id}
                      onClick={() => reissue(i.id)}
                    >
                      Re-issue certificate
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <p class="hint">
        The instances API reports each instance's status and when its certificate expires (not for instances installed
        before aps-gen kept it); "Check endpoint" asks the controller to reach the endpoint now.
      </p>
    </>
  );
}

/** "expires 2029-03-01 (in 823 days)", or why it is not known. */
export function certificateExpiry(instance: Pick<InstanceInfo, "certificate">, now = Date.now()): string {
  const notAfter = instance.certificate?.notAfter;
  if (!notAfter) return "expiry not recorded";
  const days = Math.floor((Date.parse(notAfter) - now) / 86_400_000);
  const date = notAfter.slice(0, 10);
  return days < 0 ? `expired ${date}` : `expires ${date} (in ${days} day${days === 1 ? "" : "s"})`;
}

/** "reachable: answered 404 in 3 ms", or "unreachable: <why>". */
export function healthText(h: EndpointHealth): string {
  return h.reachable ? `reachable: answered ${h.status} in ${h.ms} ms` : `unreachable: ${h.error ?? "no answer"}`;
}
