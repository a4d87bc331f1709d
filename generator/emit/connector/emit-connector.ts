import type { GeneratedFile } from "../../host.ts";
import { isBaseOperation } from "../../model/base-operations.ts";
import { isEventHandler } from "../../model/event-handler.ts";
import type { ApsModel, Operation, ResolvedType } from "../../model/model.ts";
import { kebabCase, pascalCase, propertyKey } from "../naming.ts";
import { packageBanner, typeBanner } from "../render.ts";
import { buildNameTable, type TypeNames } from "../types/name-table.ts";
import { ImportSet, refTs } from "../types/type-refs.ts";
import { validatorModulePath } from "../validators/module-scope.ts";

const CONNECTOR = "aps-gen/runtime/connector";

/**
 * Emits, per application package, one module per APP-META.xml service with the typed handler
 * interface of its type (base operations, Suspendable, custom operations with typed parameters
 * and replies) and the function that wires such handlers into the connector runtime, plus an
 * index with the handlers of the whole package. Vendors implement the interfaces.
 */
export function emitConnectors(model: ApsModel, names: ReadonlyMap<string, TypeNames> = buildNameTable(model)): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  for (const pkg of model.packages) {
    if (!pkg.descriptor) continue;
    const services: { service: string; iface: string; fn: string; file: string }[] = [];
    for (const id of pkg.typeIds) {
      const type = model.types.get(id)!;
      const service = type.decl.service;
      if (!service || !type.isResource) continue;
      const file = `connector/${pkg.name}/${kebabCase(service) || "service"}.gen.ts`;
      const iface = `${pascalCase(service)}Handlers`;
      const fn = `${service.replace(/[^A-Za-z0-9_$]/g, "_")}Service`;
      files.push({ path: file, content: serviceModule(type, model, names, file, service, iface, fn) });
      services.push({ service, iface, fn, file });
    }
    if (services.length === 0) continue;
    const appName = pascalCase(pkg.name.split("/").at(-1)!);
    const lines = [
      packageBanner(model, pkg),
      `import type { ServiceHandlers as RuntimeServiceHandlers } from "${CONNECTOR}/app";`,
      ...services.map((s) => `import { ${s.fn}, type ${s.iface} } from "./${s.file.split("/").at(-1)!.replace(/\.ts$/, ".js")}";`),
      "",
      ...services.map((s) => `export { ${s.fn}, type ${s.iface} };`),
      "",
      `/** The handlers of every service of ${pkg.name}, by APP-META.xml service id. */`,
      `export interface ${appName}ApplicationHandlers {`,
      ...services.map((s) => `  ${propertyKey(s.service)}: ${s.iface};`),
      "}",
      "",
      `/** The services of ${pkg.name} for createConnectorApp({ services }). */`,
      `export function ${appName[0]!.toLowerCase()}${appName.slice(1)}Services(handlers: ${appName}ApplicationHandlers): Record<string, RuntimeServiceHandlers> {`,
      "  return {",
      ...services.map((s) => `    ${propertyKey(s.service)}: ${s.fn}(handlers${/^[A-Za-z_$][\w$]*$/.test(s.service) ? `.${s.service}` : `[${JSON.stringify(s.service)}]`}),`),
      "  };",
      "}",
      "",
    ];
    files.push({ path: `connector/${pkg.name}/index.gen.ts`, content: lines.join("\n") });
  }
  return files;
}

function serviceModule(type: ResolvedType, model: ApsModel, names: ReadonlyMap<string, TypeNames>, file: string, service: string, iface: string, fn: string): string {
  const own = names.get(type.id)!;
  const imports = new ImportSet(file, [iface, fn]);
  const ctx = imports.use(`${CONNECTOR}/context`, "ApsCallContext");
  const maybe = imports.use(`${CONNECTOR}/replies`, "MaybePromise");
  const write = imports.use(`${CONNECTOR}/replies`, "WriteReply");
  const read = imports.useType(own, own.tsName);
  const create = imports.useType(own, `${own.tsName}Create`);
  const update = imports.useType(own, `${own.tsName}Update`);
  const custom = [...type.operations.values()].filter((op) => !isBaseOperation(op, type, model));
  const paramTypes: string[] = [];
  const members: string[] = [
    `  /** Provision (SPEC 4.3): create it; answer the properties to store, nothing, or accepted(...) to finish later. */`,
    `  provision(ctx: ${ctx}, resource: ${create} & { aps: { id: string; type: string } }): ${maybe}<${write}<Partial<${read}>>>;`,
    `  /** Configure: apply the changes; answer properties to store, nothing, or accepted(...). */`,
    `  configure?(ctx: ${ctx}, changes: ${update}): ${maybe}<${write}<Partial<${read}>>>;`,
    `  /** Unprovision: remove it; answer nothing, or accepted(...). */`,
    `  unprovision?(ctx: ${ctx}): ${maybe}<${write}<never>>;`,
  ];
  if (type.isSuspendable) {
    members.push(`  /** Suspendable (SPEC 4.5): end the user-facing service, keep the data. */`, `  disable(ctx: ${ctx}): ${maybe}<void>;`);
    members.push(`  /** Suspendable: restore the service. */`, `  enable(ctx: ${ctx}): ${maybe}<void>;`);
  }
  const wiring: string[] = [];
  for (const op of custom) {
    const method = methodName(op.name);
    const paramsName = `${pascalCase(op.name)}Params`;
    const fields = op.parameters.map((p) => {
      const t = p.contentType !== undefined ? "Uint8Array" : p.type ? refTs(p.type, type, imports, names) : "string";
      return `  ${propertyKey(p.name)}${p.required ? "" : "?"}: ${t};`;
    });
    paramTypes.push(`/** Parameters of ${op.name} (${op.static ? "static " : ""}${op.verb} ${op.path}). */`, `export interface ${paramsName} {`, ...fields, "}", "");
    const event = isEventHandler(op);
    const replyType = event
      ? imports.use(`${CONNECTOR}/replies`, "EventReply")
      : op.response?.contentType !== undefined ? imports.use(`${CONNECTOR}/replies`, "RawReply") : op.response?.type ? refTs(op.response.type, type, imports, names) : "unknown";
    const doc = event ? `Event handler ${op.name}: notifications of the subscriptions that name it (POST <service>/<subscriber id>${op.path}, or SPEC 6.2's .../events/<subscriber>/${op.name}); answer nothing, or accepted(...) to have it sent again later` : (op.description ?? `Custom operation ${op.name}`);
    members.push(`  /** ${doc} (${op.verb} ${op.path}${op.static ? ", static" : ""}). */`, `  ${propertyKey(method)}(ctx: ${ctx}, params: ${paramsName}): ${maybe}<${replyType}>;`);
    const parser = importParser(imports, type, names, op);
    const convert = imports.useValue(`${CONNECTOR}/replies`, "operationParams");
    wiring.push(
      `      ${propertyKey(op.name)}: {`,
      `        verb: ${JSON.stringify(op.verb)},`,
      `        path: ${JSON.stringify(op.path)},`,
      ...(op.static ? ["        static: true,"] : []),
      `        handle: async (ctx, body) => (await handlers.${method}(ctx, ${convert}<${paramsName}>(${parser}({ path: ctx.params, query: ctx.query, body })))) as never,`,
      `      },`,
    );
  }
  // Link callbacks (aps-facts 3): optional per relation; a relation without one answers 501.
  const relations = [...type.relations.keys()];
  if (relations.length) {
    members.push(
      `  /** Told of link changes per relation (aps-facts 3); without a callback the controller keeps the link untracked (501). */`,
      `  links?: {`,
      ...relations.map((r) => `    ${propertyKey(r)}?: { linked?(ctx: ${ctx}, otherId: string): ${maybe}<void>; unlinked?(ctx: ${ctx}, otherId: string): ${maybe}<void> };`),
      `  };`,
    );
  }
  const serviceHandlers = imports.use(`${CONNECTOR}/app`, "ServiceHandlers");
  const lines = [
    typeBanner(model, type),
    ...imports.render(),
    "",
    ...paramTypes,
    `/** Handlers of service \`${service}\`: resources of type ${type.name} (\`${type.id}\`). */`,
    `export interface ${iface} {`,
    ...members,
    "}",
    "",
    `/** Wires ${iface} into the connector runtime (routes, parameter conversion). */`,
    `export function ${fn}(handlers: ${iface}): ${serviceHandlers} {`,
    "  return {",
    "    provision: (ctx, resource) => handlers.provision(ctx, resource as never) as never,",
    "    ...(handlers.configure ? { configure: (ctx, changes) => handlers.configure!(ctx, changes as never) as never } : {}),",
    "    ...(handlers.unprovision ? { unprovision: (ctx) => handlers.unprovision!(ctx) as never } : {}),",
    ...(type.isSuspendable ? ["    disable: (ctx) => handlers.disable(ctx),", "    enable: (ctx) => handlers.enable(ctx),"] : []),
    ...(relations.length ? ["    ...(handlers.links ? { links: handlers.links } : {}),"] : []),
    `    operations: {${wiring.length ? "" : "},"}`,
    ...(wiring.length ? [...wiring, "    },"] : []),
    "  };",
    "}",
    "",
  ];
  return lines.join("\n");
}

/** The validators module's parameter parser of an operation (`parseMailboxChangePassword`). */
function importParser(imports: ImportSet, type: ResolvedType, names: ReadonlyMap<string, TypeNames>, op: Operation): string {
  const own = names.get(type.id)!;
  const fn = `parse${own.tsName}${op.name[0]!.toUpperCase()}${op.name.slice(1).replace(/[^A-Za-z0-9_$]/g, "_")}`;
  return imports.useValue(imports.relative(validatorModulePath(own)), fn);
}


function methodName(op: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(op) ? op : `op_${op.replace(/[^A-Za-z0-9_$]/g, "_")}`;
}
