import type { GeneratedFile } from "../../host.ts";
import { isBaseOperation } from "../../model/base-operations.ts";
import { isEventHandler } from "../../model/event-handler.ts";
import type { ApsModel, ResolvedType } from "../../model/model.ts";
import { packageBanner, typeBanner } from "../core/banner.ts";
import { CodeWriter, fileText } from "../core/code-writer.ts";
import { ImportSet, specifierList } from "../core/import-set.ts";
import { arrow, call, writeList, writeProperty } from "../core/layout.ts";
import { stringLiteral } from "../core/string-literal.ts";
import { parserName, validatorModulePath } from "../core/module-scope.ts";
import { buildNameTable, operationNamesOf, type TypeNames } from "../core/name-table.ts";
import { kebabCase, pascalCase, propertyKey } from "../core/naming.ts";
import { RUNTIME_TYPES } from "../types/type-refs.ts";

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
    const w = new CodeWriter();
    w.line(`/** The handlers of every service of ${pkg.name}, by APP-META.xml service id. */`);
    w.block(`export interface ${appName}ApplicationHandlers {`, () => {
      for (const s of services) w.line(`${propertyKey(s.service)}: ${s.iface};`);
    });
    w.line();
    w.line(`/** The services of ${pkg.name} for createConnectorApp({ services }). */`);
    writeList(w, `export function ${appName[0]!.toLowerCase()}${appName.slice(1)}Services(`, [`handlers: ${appName}ApplicationHandlers`], "): Record<string, RuntimeServiceHandlers> {");
    w.indented(() => {
      w.block("return {", () => {
        for (const s of services) writeProperty(w, propertyKey(s.service), call(s.fn, `handlers${/^[A-Za-z_$][\w$]*$/.test(s.service) ? `.${s.service}` : `[${stringLiteral(s.service)}]`}`));
      }, "};");
    });
    w.line("}");
    const imports = [
      packageBanner(model, pkg),
      `import type { ServiceHandlers as RuntimeServiceHandlers } from "${CONNECTOR}/app";`,
      ...services.map((s) => specifierList("import ", [s.fn, `type ${s.iface}`], ` from "./${s.file.split("/").at(-1)!.replace(/\.ts$/, ".js")}";`)),
    ];
    const exports = services.map((s) => specifierList("export ", [s.fn, `type ${s.iface}`], ";"));
    files.push({ path: `connector/${pkg.name}/index.gen.ts`, content: fileText([imports, exports, w.toString()]) });
  }
  return files;
}

function serviceModule(type: ResolvedType, model: ApsModel, names: ReadonlyMap<string, TypeNames>, file: string, service: string, iface: string, fn: string): string {
  const own = names.get(type.id)!;
  const imports = new ImportSet(file, [iface, fn]);
  const ctx = `ctx: ${imports.use(`${CONNECTOR}/context`, "ApsCallContext")}`;
  const maybe = imports.use(`${CONNECTOR}/replies`, "MaybePromise");
  const write = imports.use(`${CONNECTOR}/replies`, "WriteReply");
  const read = imports.useType(own, own.read);
  const create = imports.useType(own, own.create!);
  const update = imports.useType(own, own.update!);
  // The controller sends the new resource's id and type in `aps` (runtime/controller/forward/forwarder.ts).
  const provisioned = `${create} & { aps: ${imports.use(RUNTIME_TYPES, "ApsProvisionMeta")} }`;
  const custom = [...type.operations.values()].filter((op) => !isBaseOperation(op, type, model));
  const relations = [...type.relations.keys()];
  const serviceHandlers = imports.use(`${CONNECTOR}/app`, "ServiceHandlers");
  const w = new CodeWriter();
  w.line(`/** Handlers of service \`${service}\`: resources of type ${type.name} (\`${type.id}\`). */`);
  w.block(`export interface ${iface} {`, () => {
    w.line(`/** Provision (SPEC 4.3): create it; answer the properties to store, nothing, or accepted(...) to finish later. */`);
    writeList(w, "provision(", [ctx, `resource: ${provisioned}`], `): ${maybe}<${write}<Partial<${read}>>>;`);
    w.line(`/** Configure: apply the changes; answer properties to store, nothing, or accepted(...). */`);
    writeList(w, "configure?(", [ctx, `changes: ${update}`], `): ${maybe}<${write}<Partial<${read}>>>;`);
    w.line(`/** Unprovision: remove it; answer nothing, or accepted(...). */`);
    writeList(w, "unprovision?(", [ctx], `): ${maybe}<${write}<never>>;`);
    if (type.isSuspendable) {
      w.line(`/** Suspendable (SPEC 4.5): end the user-facing service, keep the data. */`);
      writeList(w, "disable(", [ctx], `): ${maybe}<void>;`);
      w.line(`/** Suspendable: restore the service. */`);
      writeList(w, "enable(", [ctx], `): ${maybe}<void>;`);
    }
    for (const op of custom) {
      const declared = operationNamesOf(names, op);
      const params = declared?.names.params ? imports.useType(declared.owner, declared.names.params) : undefined;
      const event = isEventHandler(op);
      const reply = event
        ? imports.use(`${CONNECTOR}/replies`, "EventReply")
        : op.response?.contentType !== undefined ? imports.use(`${CONNECTOR}/replies`, "RawReply") : declared?.names.reply ? imports.useType(declared.owner, declared.names.reply) : imports.use(`${CONNECTOR}/app`, "HandlerResult");
      const doc = event ? `Event handler ${op.name}: notifications of the subscriptions that name it (POST <service>/<subscriber id>${op.path}, or SPEC 6.2's .../events/<subscriber>/${op.name}); answer nothing, or accepted(...) to have it sent again later` : (op.description ?? `Custom operation ${op.name}`);
      w.line(`/** ${doc} (${op.verb} ${op.path}${op.static ? ", static" : ""}). */`);
      writeList(w, `${propertyKey(methodName(op.name))}(`, [ctx, ...(params ? [`params: ${params}`] : [])], `): ${maybe}<${reply}>;`);
    }
    // Link callbacks (aps-facts 3): optional per relation; a relation without one answers 501.
    if (relations.length) {
      const callbacks = imports.use(`${CONNECTOR}/app`, "LinkCallbacks");
      w.line(`/** Told of link changes per relation (aps-facts 3); without a callback the controller keeps the link untracked (501). */`);
      w.block("links?: {", () => {
        for (const r of relations) w.line(`${propertyKey(r)}?: ${callbacks};`);
      }, "};");
    }
  });
  w.line();
  w.line(`/** Wires ${iface} into the connector runtime (routes, parameter conversion). */`);
  writeList(w, `export function ${fn}(`, [`handlers: ${iface}`], `): ${serviceHandlers} {`);
  w.indented(() => {
    w.block("return {", () => {
      w.line(`...${imports.useValue(`${CONNECTOR}/base-handlers`, "baseHandlers")}(handlers),`);
      if (type.isSuspendable) w.line("disable: (ctx) => handlers.disable(ctx),").line("enable: (ctx) => handlers.enable(ctx),");
      if (custom.length === 0) w.line("operations: {},");
      else
        w.block("operations: {", () => {
          for (const op of custom) {
            const method = `handlers.${methodName(op.name)}`;
            const declared = operationNamesOf(names, op);
            w.block(`${propertyKey(op.name)}: {`, () => {
              writeProperty(w, "verb", stringLiteral(op.verb));
              writeProperty(w, "path", stringLiteral(op.path));
              if (op.static) w.line("static: true,");
              if (declared?.names.params) {
                const parser = imports.useValue(imports.relative(validatorModulePath(declared.owner)), parserName(declared.owner, op.name));
                const parsed = call(imports.useValue(`${CONNECTOR}/replies`, "parsedParams"), parser, "ctx", "body");
                writeProperty(w, "handle", arrow("(ctx, body)", call(method, "ctx", parsed)));
              } else {
                // Without parameters there is nothing to convert or check.
                writeProperty(w, "handle", arrow("(ctx)", call(method, "ctx")));
              }
            }, "},");
          }
        }, "},");
    }, "};");
  });
  w.line("}");
  return fileText([[typeBanner(model, type), ...imports.render()], w.toString()]);
}

function methodName(op: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(op) ? op : `op_${op.replace(/[^A-Za-z0-9_$]/g, "_")}`;
}
