/**
 * Emits the client SDK: per package one module of plain functions,
 * per resource type one per operation, over `aps-gen/runtime/client` — provision, get, list (a page,
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
import { packageBanner } from "../core/banner.ts";
import { CodeWriter, fileText } from "../core/code-writer.ts";
import { ImportSet } from "../core/import-set.ts";
import {
  call,
  object,
  writeAssignment,
  writeExpr,
  writeList,
  writeUnion,
  type Expr,
  type ObjectEntry,
} from "../core/layout.ts";
import { stringLiteral } from "../core/string-literal.ts";
import { buildNameTable, operationNamesOf, type TypeNames } from "../core/name-table.ts";
import { pascalCase, propertyKey, takeName } from "../core/naming.ts";
import { clientIndex, prefixed, type IndexedName } from "./client-index.ts";
import { fillPath } from "../../../runtime/common/path-template.ts";

const CLIENT = "aps-gen/runtime/client";

/** The globals client modules use, which neither an import nor a declared name may shadow. */
const GLOBALS = ["AsyncGenerator", "Blob", "Omit", "Promise", "Record", "Response", "Uint8Array", "encodeURIComponent"];

/**
 * One client module per package, `client/<package>/index.gen.ts`, holding the client functions of
 * every resource type of the package, and `client/index.gen.ts` over all of them.
 */
export function emitClients(
  model: ApsModel,
  names: ReadonlyMap<string, TypeNames> = buildNameTable(model),
): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  const indexed: IndexedName[] = [];
  for (const pkg of model.packages) {
    const root = applicationRootOf(pkg, model);
    const types: { type: ResolvedType; own: TypeNames }[] = [];
    for (const id of pkg.typeIds) {
      const type = model.types.get(id);
      const own = names.get(id);
      if (type && own && type.isResource) types.push({ type, own });
    }
    if (types.length === 0) continue;
    const path = `client/${pkg.name}/index.gen.ts`;
    const declared = packageClientNames(
      types.map(({ type, own }) => localClientNames(type, model, own.tsName, root?.id === type.id)),
    );
    // Imports keep clear of every name the module declares and of the globals it uses.
    const imports = new ImportSet(path, [...GLOBALS, ...declared.flatMap((d) => [...d.values()].map((n) => n.name))]);
    const w = new CodeWriter();
    types.forEach(({ type, own }, i) => {
      clientFunctions(w, type, model, names, own, imports, declared[i]!, root?.id === type.id);
      for (const n of declared[i]!.values())
        indexed.push({ path, packageName: pkg.name, tsName: own.tsName, name: n.name, value: n.value });
    });
    files.push({ path, content: fileText([[packageBanner(model, pkg), ...imports.render()], w.toString()]) });
  }
  // Without a resource type there is no client function to reach, and no index.
  return files.length ? [...files, clientIndex(model, names, indexed)] : [];
}

/** A name the client module of a package declares: a function or constant (value), or a type. */
interface ClientName {
  readonly name: string;
  readonly value: boolean;
}

/**
 * The names one type's client functions take, by what they are (`get`, `link:<relation>`,
 * `op:<operation>`), in the order they are written: unique among themselves (`_2` for a
 * relation `pages` whose `listXPages` is the page-by-page list's name), not yet in the package.
 */
function localClientNames(type: ResolvedType, model: ApsModel, T: string, isRoot: boolean): LocalClientNames {
  const s = stem(T);
  const out = new Map<string, ClientName>();
  const taken = new Set<string>(GLOBALS);
  const add = (key: string, name: string, value = true) => out.set(key, { name: takeName(name, taken), value });
  add("query", `${s}Query`);
  add("provision", `provision${T}`);
  add("get", `get${T}`);
  add("list", `list${plural(T)}`);
  add("listPages", `list${T}Pages`);
  add("configure", `configure${T}`);
  add("unprovision", `unprovision${T}`);
  if (type.isSuspendable) {
    add("disable", `disable${T}`);
    add("enable", `enable${T}`);
  }
  for (const name of type.relations.keys()) {
    const R = pascalCase(name);
    add(`link:${name}`, `link${T}${R}`);
    add(`unlink:${name}`, `unlink${T}${R}`);
    add(`list:${name}`, `list${T}${R}`);
  }
  if (isRoot) add("install", `install${T}`);
  let handlers = false;
  for (const op of type.operations.values()) {
    if (isBaseOperation(op, type, model)) continue;
    handlers ||= isEventHandler(op);
    add(`op:${op.name}`, `${s}${pascalCase(op.name)}`);
  }
  if (handlers) {
    add("eventHandler", `${T}EventHandler`, false);
    add("subscribe", `subscribe${T}`);
    add("listSubscriptions", `list${T}EventSubscriptions`);
    add("unsubscribe", `unsubscribe${T}`);
  }
  return { tsName: T, names: out, count: out.size };
}

interface LocalClientNames {
  readonly tsName: string;
  readonly names: Map<string, ClientName>;
  readonly count: number;
}

/**
 * The names of the package's client module, unique in it by construction: a name two types
 * declare (`listMailboxPages` of Mailbox and of MailboxPage) takes its type's name in front
 * (`mailboxListMailboxPages`, `mailboxPageListMailboxPages`), as the client index exported such
 * names, then `_2`, `_3` while still taken. Names declared once keep their spelling: they are
 * settled first.
 */
function packageClientNames(locals: readonly LocalClientNames[]): Map<string, ClientName>[] {
  const count = new Map<string, number>();
  for (const local of locals) for (const n of local.names.values()) count.set(n.name, (count.get(n.name) ?? 0) + 1);
  // Each type's names are unique among themselves: no name is shared when the counts add up.
  if (count.size === locals.reduce((sum, l) => sum + l.count, 0)) return locals.map((l) => l.names);
  const taken = new Set<string>(GLOBALS);
  for (const [name, k] of count) if (k === 1) taken.add(name);
  return locals.map((local) => {
    const out = new Map<string, ClientName>();
    for (const [key, n] of local.names) {
      if (count.get(n.name) === 1) {
        out.set(key, n);
        continue;
      }
      out.set(key, { name: takeName(prefixed(local.tsName, n.name), taken), value: n.value });
    }
    return out;
  });
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

/** Writes one type's client functions into its package's client module, under the names `declared` gives them. */
function clientFunctions(
  w: CodeWriter,
  type: ResolvedType,
  model: ApsModel,
  names: ReadonlyMap<string, TypeNames>,
  own: TypeNames,
  imports: ImportSet,
  declared: ReadonlyMap<string, ClientName>,
  isRoot: boolean,
): void {
  const T = own.tsName;
  const n = (key: string) => declared.get(key)!.name;
  const use = (name: string, module = "client") => imports.useValue(`${CLIENT}/${module}`, name);
  const client = `client: ${imports.use(`${CLIENT}/client`, "ApsClient")}`;
  const read = imports.useType(own, own.read);
  const create = imports.useType(own, own.create!);
  const update = imports.useType(own, own.update!);
  const typeId = imports.useTypeValue(own, own.typeIdConst);
  const listQuery = imports.use(`${CLIENT}/rql`, "ListQuery");
  /** `export <head>(<params>): <returns> { <statement> }`: `head` is `function name` or `async function name`. */
  const fn = (doc: string, head: string, params: readonly string[], returns: string, statement: string, body: Expr) => {
    w.line(`/** ${doc} */`);
    writeList(w, `export ${head}(`, params, `): ${returns} {`);
    w.indented(() => writeExpr(w, statement, body, ";"));
    w.line("}").line();
  };
  const resourcePath = (id = "id") => `\`/aps/2/resources/\${${use("segment")}(${id})}`;
  const sendJson = (...entries: ObjectEntry[]) => call(use("sendJson"), "client", object(...entries));
  const send = (...entries: ObjectEntry[]) => call(use("send"), "client", object(...entries));

  w.line(
    `/** Filters for lists of ${T}: \`${n("query")}.eq("name", value)\` takes only ${T}'s own properties, with their types. */`,
  );
  writeAssignment(w, `export const ${n("query")} =`, `/* @__PURE__ */ ${use("rql", "rql")}<${read}>()`);
  w.line();
  fn(
    `Provisions a ${T} (POST /aps/2/resources); the reply is the stored resource (\`aps.status\` \`aps:provisioning\` when the application finishes later).`,
    `function ${n("provision")}`,
    [client, `resource: ${create}`],
    `Promise<${read}>`,
    "return ",
    sendJson(
      ["method", '"POST"'],
      ["path", '"/aps/2/resources"'],
      ["json", object("...resource", ["aps", object("...resource.aps", ["type", typeId])])],
    ),
  );
  fn(
    `Reads one ${T}.`,
    `function ${n("get")}`,
    [client, "id: string"],
    `Promise<${read}>`,
    "return ",
    sendJson(["method", '"GET"'], ["path", `${resourcePath()}\``]),
  );
  fn(
    `One page of ${T} resources (and their subtypes) matching \`query\`, with its Content-Range.`,
    `function ${n("list")}`,
    [client, `query?: ${listQuery}<${read}>`],
    `Promise<${imports.use(`${CLIENT}/pages`, "Page")}<${read}>>`,
    "return ",
    call(use("listPage", "pages"), "client", '"/aps/2/resources"', call(use("queryText", "rql"), "query", typeId)),
  );
  fn(
    `Every ${T} matching \`query\`, page by page (\`for await (const page of ...)\`).`,
    `function ${n("listPages")}`,
    [client, `query?: Omit<${listQuery}<${read}>, "limit">`, "pageSize = 100"],
    `AsyncGenerator<${read}[], void, undefined>`,
    "return ",
    call(
      use("listPages", "pages"),
      "client",
      '"/aps/2/resources"',
      call(use("queryText", "rql"), "query", typeId),
      "pageSize",
    ),
  );
  fn(
    `Configures a ${T}: only the properties given change (\`aps.revision\` makes it conditional).`,
    `function ${n("configure")}`,
    [client, "id: string", `changes: ${update}`],
    `Promise<${read}>`,
    "return ",
    sendJson(["method", '"PUT"'], ["path", `${resourcePath()}\``], ["json", "changes"]),
  );
  fn(
    `Unprovisions a ${T}.`,
    `async function ${n("unprovision")}`,
    [client, "id: string"],
    "Promise<void>",
    "await ",
    send(["method", '"DELETE"'], ["path", `${resourcePath()}\``]),
  );
  if (type.isSuspendable) {
    fn(
      `Disables a ${T} (Suspendable, administrators only).`,
      `function ${n("disable")}`,
      [client, "id: string"],
      `Promise<${read}>`,
      "return ",
      sendJson(["method", '"PUT"'], ["path", `${resourcePath()}/disable\``]),
    );
    fn(
      `Enables a disabled ${T} (Suspendable, administrators only).`,
      `function ${n("enable")}`,
      [client, "id: string"],
      `Promise<${read}>`,
      "return ",
      sendJson(["method", '"PUT"'], ["path", `${resourcePath()}/enable\``]),
    );
  }
  for (const [name, rel] of type.relations) {
    const target = names.get(rel.typeId);
    const targetType =
      target && model.types.get(rel.typeId)?.isResource
        ? imports.useType(target, target.read)
        : "Record<string, unknown>";
    const ids = [client, "id: string", "targetId: string"];
    fn(
      `Links ${name} of a ${T} to \`targetId\`${rel.collection ? " (adds it to the collection)" : " (replaces the link it had)"}.`,
      `async function ${n(`link:${name}`)}`,
      ids,
      "Promise<void>",
      "await ",
      send(
        ["method", '"POST"'],
        ["path", `${resourcePath()}/${name}\``],
        ["json", object(["aps", object(["id", "targetId"])])],
      ),
    );
    fn(
      `Unlinks \`targetId\` from ${name} of a ${T}.`,
      `async function ${n(`unlink:${name}`)}`,
      ids,
      "Promise<void>",
      "await ",
      send(["method", '"DELETE"'], ["path", `${resourcePath()}/${name}/\${${use("segment")}(targetId)}\``]),
    );
    fn(
      `The resources ${name} of a ${T} links to (those the caller may see).`,
      `function ${n(`list:${name}`)}`,
      [client, "id: string"],
      `Promise<${targetType}[]>`,
      "return ",
      sendJson(["method", '"GET"'], ["path", `${resourcePath()}/${name}\``]),
    );
  }
  if (isRoot) {
    const settings = imports.useType(own, own.settings!);
    const request = imports.use(`${CLIENT}/administration`, "InstallRequest");
    const instance = imports.use(`${CLIENT}/administration`, "InstanceInfo");
    fn(
      `Installs an instance of the application whose root type is ${T} (POST /aps/2/instances); \`settings\` are the properties of its root resource.`,
      `function ${n("install")}`,
      [client, `request: ${request}<${settings}>`],
      `Promise<${instance}>`,
      "return ",
      call(use("installInstance", "administration"), "client", "request"),
    );
  }
  const handlers: string[] = [];
  for (const op of type.operations.values()) {
    if (isBaseOperation(op, type, model)) continue;
    if (isEventHandler(op)) handlers.push(op.name);
    operation(w, op, n(`op:${op.name}`), names, imports, T, typeId, client);
  }
  if (handlers.length) {
    const request = imports.use(`${CLIENT}/subscriptions`, "SubscriptionRequest");
    const subscription = imports.use(`${CLIENT}/subscriptions`, "Subscription");
    const handler = n("eventHandler");
    w.line(`/** The event handler operations of ${T}: what a subscription's \`handler\` may name. */`);
    writeUnion(w, `export type ${handler} =`, handlers.map(stringLiteral));
    w.line();
    fn(
      `Subscribes a ${T} to an event (docs/aps/events.md); notifications go to its \`handler\` operation.`,
      `function ${n("subscribe")}`,
      [client, "id: string", `request: ${request}<${handler}>`],
      `Promise<${subscription}<${handler}>>`,
      "return ",
      call(use("subscribe", "subscriptions"), "client", "id", "request"),
    );
    fn(
      `The event subscriptions of a ${T}.`,
      `function ${n("listSubscriptions")}`,
      [client, "id: string"],
      `Promise<${subscription}<${handler}>[]>`,
      "return ",
      call(use("listSubscriptions", "subscriptions"), "client", "id"),
    );
    fn(
      `Removes an event subscription of a ${T}.`,
      `function ${n("unsubscribe")}`,
      [client, "id: string", "subscriptionId: string"],
      "Promise<void>",
      "return ",
      call(use("unsubscribe", "subscriptions"), "client", "id", "subscriptionId"),
    );
  }
}

/** A custom operation: the function `name`, typed by the params and reply types of the types module. */
function operation(
  w: CodeWriter,
  op: Operation,
  name: string,
  names: ReadonlyMap<string, TypeNames>,
  imports: ImportSet,
  T: string,
  typeId: string,
  client: string,
): void {
  const declared = operationNamesOf(names, op);
  const raw = op.parameters.some((p) => p.contentType !== undefined);
  // A non-JSON body may be sent as a Blob or a string as well as bytes.
  const paramsName = declared?.names.params
    ? `${imports.useType(declared.owner, declared.names.params)}${raw ? "<Blob | Uint8Array | string>" : ""}`
    : undefined;
  const segment = imports.useValue(`${CLIENT}/client`, "segment");
  const get = (p: string) => (/^[A-Za-z_$][\w$]*$/.test(p) ? `params.${p}` : `params[${stringLiteral(p)}]`);
  const path = fillPath(op.path, (p) => `\${${segment}(${get(p)})}`);
  const base = op.static ? `/aps/2/static/\${encodeURIComponent(${typeId})}` : `/aps/2/resources/\${${segment}(id)}`;
  const query = op.parameters.filter((p) => p.kind === "query");
  const body = op.parameters.find((p) => p.kind === "body");
  const parts: ObjectEntry[] = [
    ["method", stringLiteral(op.verb)],
    ["path", `\`${base}${path === "/" ? "" : path}\``],
  ];
  if (query.length)
    parts.push([
      "query",
      call(
        imports.useValue(`${CLIENT}/client`, "queryString"),
        object(...query.map((p): ObjectEntry => [propertyKey(p.name), get(p.name)])),
      ),
    ]);
  if (body?.contentType !== undefined)
    parts.push([
      "raw",
      object(["contentType", stringLiteral(body.contentType || "application/octet-stream")], ["data", get(body.name)]),
    ]);
  else if (body) parts.push(["json", get(body.name)]);
  const params = [client, ...(op.static ? [] : ["id: string"]), ...(paramsName ? [`params: ${paramsName}`] : [])];
  const describe = `${op.description ?? `${op.name} of ${T}`} (${op.verb} ${op.path}${op.static ? ", static" : ""}).`;
  const rawReply = op.response?.contentType !== undefined;
  const reply = rawReply
    ? "Response"
    : declared?.names.reply
      ? imports.useType(declared.owner, declared.names.reply)
      : "unknown";
  w.line(
    rawReply
      ? `/** ${describe} The reply is not JSON: read it as a Blob or a stream from the Response. */`
      : `/** ${describe} */`,
  );
  writeList(w, `export function ${name}(`, params, `): Promise<${reply}> {`);
  w.indented(() =>
    writeExpr(
      w,
      "return ",
      call(imports.useValue(`${CLIENT}/client`, rawReply ? "send" : "sendJson"), "client", object(...parts)),
      ";",
    ),
  );
  w.line("}").line();
}
