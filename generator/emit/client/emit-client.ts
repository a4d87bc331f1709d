/**
 * Emits the client SDK (DESIGN 1 `emit/client`): per resource type one module of plain
 * functions, one per operation, over `aps-gen/runtime/client` — provision, get, list (a page,
 * or every page), configure, unprovision, enable/disable for Suspendable types, link, unlink and
 * list per relation, every custom operation with typed parameters and reply, subscriptions for
 * types with event handlers — and a typed RQL builder. Functions, not classes: a bundler keeps
 * only what an application calls.
 */
import type { GeneratedFile } from "../../host.ts";
import { isBaseOperation } from "../../model/base-operations.ts";
import { applicationRootOf } from "../../model/application-root.ts";
import { isEventHandler } from "../../model/event-handler.ts";
import type { ApsModel, Operation, ResolvedType } from "../../model/model.ts";
import { typeBanner } from "../core/banner.ts";
import { CodeWriter, fileText } from "../core/code-writer.ts";
import { ImportSet } from "../core/import-set.ts";
import { call, object, writeAssignment, writeExpr, writeList, writeUnion, type Expr, type ObjectEntry } from "../core/layout.ts";
import { stringLiteral } from "../core/string-literal.ts";
import { buildNameTable, operationNamesOf, type TypeNames } from "../core/name-table.ts";
import { pascalCase, propertyKey } from "../core/naming.ts";
import { clientIndex, type IndexedModule } from "./client-index.ts";
import { fillPath } from "../../../runtime/common/path-template.ts";

const CLIENT = "aps-gen/runtime/client";

/** A client module and what it exports, for the client index. */
interface ClientModule extends IndexedModule {
  readonly file: GeneratedFile;
}

/** One client module per resource type, at `client/<package>/<type>.gen.ts`, and `client/index.gen.ts` over all of them. */
export function emitClients(model: ApsModel, names: ReadonlyMap<string, TypeNames> = buildNameTable(model)): GeneratedFile[] {
  const modules = clientModules(model, names);
  // Without a resource type there is no client function to reach, and no index.
  return modules.length ? [...modules.map((m) => m.file), clientIndex(model, names, modules)] : [];
}

/** The client module of every resource type, with the names each exports. */
function clientModules(model: ApsModel, names: ReadonlyMap<string, TypeNames>): ClientModule[] {
  const out: ClientModule[] = [];
  for (const pkg of model.packages) {
    const root = applicationRootOf(pkg, model);
    for (const id of pkg.typeIds) {
      const type = model.types.get(id);
      const own = names.get(id);
      if (!type || !own || !type.isResource) continue;
      const path = `client/${own.moduleStem}.gen.ts`;
      out.push({ ...clientModule(type, model, names, own, path, root?.id === type.id), path, packageName: pkg.name, tsName: own.tsName });
    }
  }
  return out;
}

/** The function-name stem of a type (`Mailbox` -> `mailbox`). */
function stem(tsName: string): string {
  return tsName[0]!.toLowerCase() + tsName.slice(1);
}

/** `Mailbox` -> `Mailboxes`, `Policy` -> `Policies`. */
function plural(name: string): string {
  if (/(s|x|z|ch|sh)$/.test(name)) return `${name}es`;
  if (/[^aeiou]y$/.test(name)) return `${name.slice(0, -1)}ies`;
  return `${name}s`;
}

function clientModule(type: ResolvedType, model: ApsModel, names: ReadonlyMap<string, TypeNames>, own: TypeNames, file: string, isRoot: boolean): { file: GeneratedFile; types: string[]; values: string[] } {
  const T = own.tsName;
  const s = stem(T);
  const imports = new ImportSet(file, []);
  const use = (name: string, module = "client") => imports.useValue(`${CLIENT}/${module}`, name);
  const client = `client: ${imports.use(`${CLIENT}/client`, "ApsClient")}`;
  const read = imports.useType(own, own.read);
  const create = imports.useType(own, own.create!);
  const update = imports.useType(own, own.update!);
  const typeId = imports.useTypeValue(own, own.typeIdConst);
  const listQuery = imports.use(`${CLIENT}/rql`, "ListQuery");
  const w = new CodeWriter();
  const values: string[] = [];
  const types: string[] = [];
  /** `export <head>(<params>): <returns> { <statement> }`: `head` is `function name` or `async function name`. */
  const fn = (doc: string, head: string, params: readonly string[], returns: string, statement: string, body: Expr) => {
    values.push(head.slice(head.lastIndexOf(" ") + 1));
    w.line(`/** ${doc} */`);
    writeList(w, `export ${head}(`, params, `): ${returns} {`);
    w.indented(() => writeExpr(w, statement, body, ";"));
    w.line("}").line();
  };
  const resourcePath = (id = "id") => `\`/aps/2/resources/\${${use("segment")}(${id})}`;
  const sendJson = (...entries: ObjectEntry[]) => call(use("sendJson"), "client", object(...entries));
  const send = (...entries: ObjectEntry[]) => call(use("send"), "client", object(...entries));

  values.push(`${s}Query`);
  w.line(`/** Filters for lists of ${T}: \`${s}Query.eq("name", value)\` takes only ${T}'s own properties, with their types. */`);
  writeAssignment(w, `export const ${s}Query =`, `/* @__PURE__ */ ${use("rql", "rql")}<${read}>()`);
  w.line();
  fn(`Provisions a ${T} (POST /aps/2/resources); the reply is the stored resource (\`aps.status\` \`aps:provisioning\` when the application finishes later).`, `function provision${T}`, [client, `resource: ${create}`], `Promise<${read}>`, "return ", sendJson(["method", '"POST"'], ["path", '"/aps/2/resources"'], ["json", object("...resource", ["aps", object("...resource.aps", ["type", typeId])])]));
  fn(`Reads one ${T}.`, `function get${T}`, [client, "id: string"], `Promise<${read}>`, "return ", sendJson(["method", '"GET"'], ["path", `${resourcePath()}\``]));
  fn(`One page of ${T} resources (and their subtypes) matching \`query\`, with its Content-Range.`, `function list${plural(T)}`, [client, `query?: ${listQuery}<${read}>`], `Promise<${imports.use(`${CLIENT}/pages`, "Page")}<${read}>>`, "return ", call(use("listPage", "pages"), "client", '"/aps/2/resources"', call(use("queryText", "rql"), "query", typeId)));
  fn(`Every ${T} matching \`query\`, page by page (\`for await (const page of ...)\`).`, `function list${T}Pages`, [client, `query?: Omit<${listQuery}<${read}>, "limit">`, "pageSize = 100"], `AsyncGenerator<${read}[], void, undefined>`, "return ", call(use("listPages", "pages"), "client", '"/aps/2/resources"', call(use("queryText", "rql"), "query", typeId), "pageSize"));
  fn(`Configures a ${T}: only the properties given change (\`aps.revision\` makes it conditional).`, `function configure${T}`, [client, "id: string", `changes: ${update}`], `Promise<${read}>`, "return ", sendJson(["method", '"PUT"'], ["path", `${resourcePath()}\``], ["json", "changes"]));
  fn(`Unprovisions a ${T}.`, `async function unprovision${T}`, [client, "id: string"], "Promise<void>", "await ", send(["method", '"DELETE"'], ["path", `${resourcePath()}\``]));
  if (type.isSuspendable) {
    fn(`Disables a ${T} (Suspendable, administrators only).`, `function disable${T}`, [client, "id: string"], `Promise<${read}>`, "return ", sendJson(["method", '"PUT"'], ["path", `${resourcePath()}/disable\``]));
    fn(`Enables a disabled ${T} (Suspendable, administrators only).`, `function enable${T}`, [client, "id: string"], `Promise<${read}>`, "return ", sendJson(["method", '"PUT"'], ["path", `${resourcePath()}/enable\``]));
  }
  for (const [name, rel] of type.relations) {
    const R = pascalCase(name);
    const target = names.get(rel.typeId);
    const targetType = target && model.types.get(rel.typeId)?.isResource ? imports.useType(target, target.read) : "Record<string, unknown>";
    const ids = [client, "id: string", "targetId: string"];
    fn(`Links ${name} of a ${T} to \`targetId\`${rel.collection ? " (adds it to the collection)" : " (replaces the link it had)"}.`, `async function link${T}${R}`, ids, "Promise<void>", "await ", send(["method", '"POST"'], ["path", `${resourcePath()}/${name}\``], ["json", object(["aps", object(["id", "targetId"])])]));
    fn(`Unlinks \`targetId\` from ${name} of a ${T}.`, `async function unlink${T}${R}`, ids, "Promise<void>", "await ", send(["method", '"DELETE"'], ["path", `${resourcePath()}/${name}/\${${use("segment")}(targetId)}\``]));
    fn(`The resources ${name} of a ${T} links to (those the caller may see).`, `function list${T}${R}`, [client, "id: string"], `Promise<${targetType}[]>`, "return ", sendJson(["method", '"GET"'], ["path", `${resourcePath()}/${name}\``]));
  }
  if (isRoot) {
    const settings = imports.useType(own, own.settings!);
    const request = imports.use(`${CLIENT}/administration`, "InstallRequest");
    const instance = imports.use(`${CLIENT}/administration`, "InstanceInfo");
    fn(`Installs an instance of the application whose root type is ${T} (POST /aps/2/instances); \`settings\` are the properties of its root resource.`, `function install${T}`, [client, `request: ${request}<${settings}>`], `Promise<${instance}>`, "return ", call(use("installInstance", "administration"), "client", "request"));
  }
  const handlers: string[] = [];
  for (const op of type.operations.values()) {
    if (isBaseOperation(op, type, model)) continue;
    if (isEventHandler(op)) handlers.push(op.name);
    values.push(operation(w, op, names, imports, s, T, typeId, client));
  }
  if (handlers.length) {
    const request = imports.use(`${CLIENT}/subscriptions`, "SubscriptionRequest");
    const subscription = imports.use(`${CLIENT}/subscriptions`, "Subscription");
    types.push(`${T}EventHandler`);
    w.line(`/** The event handler operations of ${T}: what a subscription's \`handler\` may name. */`);
    writeUnion(w, `export type ${T}EventHandler =`, handlers.map(stringLiteral));
    w.line();
    fn(`Subscribes a ${T} to an event (SPEC 6.1); notifications go to its \`handler\` operation.`, `function subscribe${T}`, [client, "id: string", `request: ${request}<${T}EventHandler>`], `Promise<${subscription}<${T}EventHandler>>`, "return ", call(use("subscribe", "subscriptions"), "client", "id", "request"));
    fn(`The event subscriptions of a ${T}.`, `function list${T}EventSubscriptions`, [client, "id: string"], `Promise<${subscription}<${T}EventHandler>[]>`, "return ", call(use("listSubscriptions", "subscriptions"), "client", "id"));
    fn(`Removes an event subscription of a ${T}.`, `function unsubscribe${T}`, [client, "id: string", "subscriptionId: string"], "Promise<void>", "return ", call(use("unsubscribe", "subscriptions"), "client", "id", "subscriptionId"));
  }
  return { file: { path: file, content: fileText([[typeBanner(model, type), ...imports.render()], w.toString()]) }, types, values };
}

/** A custom operation: the function, typed by the params and reply types of the types module; returns its name. */
function operation(w: CodeWriter, op: Operation, names: ReadonlyMap<string, TypeNames>, imports: ImportSet, s: string, T: string, typeId: string, client: string): string {
  const name = `${s}${pascalCase(op.name)}`;
  const declared = operationNamesOf(names, op);
  const raw = op.parameters.some((p) => p.contentType !== undefined);
  // A non-JSON body may be sent as a Blob or a string as well as bytes.
  const paramsName = declared?.names.params ? `${imports.useType(declared.owner, declared.names.params)}${raw ? "<Blob | Uint8Array | string>" : ""}` : undefined;
  const segment = imports.useValue(`${CLIENT}/client`, "segment");
  const get = (p: string) => (/^[A-Za-z_$][\w$]*$/.test(p) ? `params.${p}` : `params[${stringLiteral(p)}]`);
  const path = fillPath(op.path, (p) => `\${${segment}(${get(p)})}`);
  const base = op.static ? `/aps/2/static/\${encodeURIComponent(${typeId})}` : `/aps/2/resources/\${${segment}(id)}`;
  const query = op.parameters.filter((p) => p.kind === "query");
  const body = op.parameters.find((p) => p.kind === "body");
  const parts: ObjectEntry[] = [["method", stringLiteral(op.verb)], ["path", `\`${base}${path === "/" ? "" : path}\``]];
  if (query.length) parts.push(["query", call(imports.useValue(`${CLIENT}/client`, "queryString"), object(...query.map((p): ObjectEntry => [propertyKey(p.name), get(p.name)])))]);
  if (body?.contentType !== undefined) parts.push(["raw", object(["contentType", stringLiteral(body.contentType || "application/octet-stream")], ["data", get(body.name)])]);
  else if (body) parts.push(["json", get(body.name)]);
  const params = [client, ...(op.static ? [] : ["id: string"]), ...(paramsName ? [`params: ${paramsName}`] : [])];
  const describe = `${op.description ?? `${op.name} of ${T}`} (${op.verb} ${op.path}${op.static ? ", static" : ""}).`;
  const rawReply = op.response?.contentType !== undefined;
  const reply = rawReply ? "Response" : declared?.names.reply ? imports.useType(declared.owner, declared.names.reply) : "unknown";
  w.line(rawReply ? `/** ${describe} The reply is not JSON: read it as a Blob or a stream from the Response. */` : `/** ${describe} */`);
  writeList(w, `export function ${name}(`, params, `): Promise<${reply}> {`);
  w.indented(() => writeExpr(w, "return ", call(imports.useValue(`${CLIENT}/client`, rawReply ? "send" : "sendJson"), "client", object(...parts)), ";"));
  w.line("}").line();
  return name;
}
