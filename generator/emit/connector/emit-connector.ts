import type { GeneratedFile } from "../../host.ts";
import { isBaseOperation } from "../../model/base-operations.ts";
import { isEventHandler } from "../../model/event-handler.ts";
import type { ApsModel, ModelPackage, ResolvedType } from "../../model/model.ts";
import { packageBanner } from "../core/banner.ts";
import { CodeWriter, fileText } from "../core/code-writer.ts";
import { ImportSet } from "../core/import-set.ts";
import { arrow, call, writeList, writeProperty } from "../core/layout.ts";
import { stringLiteral } from "../core/string-literal.ts";
import { parserName, validatorModulePath } from "../core/module-scope.ts";
import { buildNameTable, operationNamesOf, type TypeNames } from "../core/name-table.ts";
import { pascalCase, propertyKey, takeName } from "../core/naming.ts";
import { RUNTIME_TYPES } from "../types/type-refs.ts";

const CONNECTOR = "aps-gen/runtime/connector";

/** The names a package's connector module declares, made once so init's scaffold imports the same. */
export interface ConnectorNames {
  /** `<App>ApplicationHandlers`: the handlers of every service, by service id. */
  readonly appHandlers: string;
  /** `<app>Services`: the function that wires them for createConnectorApp({ services }). */
  readonly servicesFn: string;
  /** Per service (its type's id): `<Service>Handlers` and the `<service>Service` function that wires them. */
  readonly services: ReadonlyMap<string, { readonly iface: string; readonly fn: string }>;
}

/** Where the connector module of a package lives, below the output folder. */
export function connectorModulePath(pkg: ModelPackage): string {
  return `connector/${pkg.name}/index.gen.ts`;
}

/** The resource types of a package with an APP-META.xml service, in the package's order. */
export function serviceTypes(model: ApsModel, pkg: ModelPackage): ResolvedType[] {
  if (!pkg.descriptor) return [];
  return pkg.typeIds.map((id) => model.types.get(id)!).filter((t) => t.decl.service && t.isResource);
}

/**
 * The names of a package's connector module, unique in it by construction: the package's two
 * names first, then each service's interface and function in the package's order, a name
 * already taken (`my-svc` and `mySvc` are both `MySvcHandlers`; a service `cloudmail-application`)
 * followed by `_2`, `_3`.
 */
export function connectorNames(model: ApsModel, pkg: ModelPackage): ConnectorNames {
  const taken = new Set<string>(GLOBALS);
  const unique = (name: string) => takeName(name, taken);
  const appName = pascalCase(pkg.name.split("/").at(-1)!);
  const appHandlers = unique(`${appName}ApplicationHandlers`);
  const servicesFn = unique(`${appName[0]!.toLowerCase()}${appName.slice(1)}Services`);
  const services = new Map<string, { iface: string; fn: string }>();
  for (const t of serviceTypes(model, pkg)) {
    const service = t.decl.service!;
    services.set(t.id, {
      iface: unique(`${pascalCase(service)}Handlers`),
      fn: unique(`${service.replace(/[^A-Za-z0-9_$]/g, "_")}Service`),
    });
  }
  return { appHandlers, servicesFn, services };
}

/** The globals connector modules use, which neither an import nor a declared name may shadow. */
const GLOBALS = ["Partial", "Record"];

/**
 * Emits, per application package, one module `connector/<package>/index.gen.ts` with, per
 * APP-META.xml service, the typed handler interface of its type (base operations, Suspendable,
 * custom operations with typed parameters and replies) and the function that wires such
 * handlers into the connector runtime, then the handlers of the whole package and the function
 * that wires them all. Vendors implement the interfaces.
 */
export function emitConnectors(
  model: ApsModel,
  names: ReadonlyMap<string, TypeNames> = buildNameTable(model),
): GeneratedFile[] {
  const files: GeneratedFile[] = [];
  for (const pkg of model.packages) {
    const types = serviceTypes(model, pkg);
    if (types.length === 0) continue;
    const declared = connectorNames(model, pkg);
    const path = connectorModulePath(pkg);
    const imports = new ImportSet(path, [
      ...GLOBALS,
      declared.appHandlers,
      declared.servicesFn,
      ...[...declared.services.values()].flatMap((d) => [d.iface, d.fn]),
    ]);
    const w = new CodeWriter();
    for (const type of types) {
      const { iface, fn } = declared.services.get(type.id)!;
      serviceDeclarations(w, type, model, names, imports, type.decl.service!, iface, fn);
      w.line();
    }
    const serviceHandlers = imports.use(`${CONNECTOR}/app`, "ServiceHandlers");
    w.line(`/** The handlers of every service of ${pkg.name}, by APP-META.xml service id. */`);
    w.block(`export interface ${declared.appHandlers} {`, () => {
      for (const t of types) w.line(`${propertyKey(t.decl.service!)}: ${declared.services.get(t.id)!.iface};`);
    });
    w.line();
    w.line(`/** The services of ${pkg.name} for createConnectorApp({ services }). */`);
    writeList(
      w,
      `export function ${declared.servicesFn}(`,
      [`handlers: ${declared.appHandlers}`],
      `): Record<string, ${serviceHandlers}> {`,
    );
    w.indented(() => {
      w.block(
        "return {",
        () => {
          for (const t of types) {
            const service = t.decl.service!;
            writeProperty(
              w,
              propertyKey(service),
              call(
                declared.services.get(t.id)!.fn,
                `handlers${/^[A-Za-z_$][\w$]*$/.test(service) ? `.${service}` : `[${stringLiteral(service)}]`}`,
              ),
            );
          }
        },
        "};",
      );
    });
    w.line("}");
    files.push({ path, content: fileText([[packageBanner(model, pkg), ...imports.render()], w.toString()]) });
  }
  return files;
}

/** Writes one service's handler interface and wiring function into its package's connector module. */
function serviceDeclarations(
  w: CodeWriter,
  type: ResolvedType,
  model: ApsModel,
  names: ReadonlyMap<string, TypeNames>,
  imports: ImportSet,
  service: string,
  iface: string,
  fn: string,
): void {
  const own = names.get(type.id)!;
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
  w.line(`/** Handlers of service \`${service}\`: resources of type ${type.name} (\`${type.id}\`). */`);
  w.block(`export interface ${iface} {`, () => {
    w.line(
      `/** Provision (docs/aps/lifecycle.md): create it; answer the properties to store, nothing, or accepted(...) to finish later. */`,
    );
    writeList(w, "provision(", [ctx, `resource: ${provisioned}`], `): ${maybe}<${write}<Partial<${read}>>>;`);
    w.line(`/** Configure: apply the changes; answer properties to store, nothing, or accepted(...). */`);
    writeList(w, "configure?(", [ctx, `changes: ${update}`], `): ${maybe}<${write}<Partial<${read}>>>;`);
    w.line(`/** Unprovision: remove it; answer nothing, or accepted(...). */`);
    writeList(w, "unprovision?(", [ctx], `): ${maybe}<${write}<never>>;`);
    if (type.isSuspendable) {
      w.line(`/** Suspendable (docs/aps/lifecycle.md): end the user-facing service, keep the data. */`);
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
        : op.response?.contentType !== undefined
          ? imports.use(`${CONNECTOR}/replies`, "RawReply")
          : declared?.names.reply
            ? imports.useType(declared.owner, declared.names.reply)
            : imports.use(`${CONNECTOR}/app`, "HandlerResult");
      const doc = event
        ? `Event handler ${op.name}: notifications of the subscriptions that name it (POST <service>/<subscriber id>${op.path}, or the form .../events/<subscriber>/${op.name}); answer nothing, or accepted(...) to have it sent again later`
        : (op.description ?? `Custom operation ${op.name}`);
      w.line(`/** ${doc} (${op.verb} ${op.path}${op.static ? ", static" : ""}). */`);
      writeList(
        w,
        `${propertyKey(methodName(op.name))}(`,
        [ctx, ...(params ? [`params: ${params}`] : [])],
        `): ${maybe}<${reply}>;`,
      );
    }
    // Link callbacks (docs/aps/relations.md section 6): optional per relation; a relation without one answers 501.
    if (relations.length) {
      const callbacks = imports.use(`${CONNECTOR}/app`, "LinkCallbacks");
      w.line(
        `/** Told of link changes per relation (docs/aps/relations.md); without a callback the controller keeps the link untracked (501). */`,
      );
      w.block(
        "links?: {",
        () => {
          for (const r of relations) w.line(`${propertyKey(r)}?: ${callbacks};`);
        },
        "};",
      );
    }
  });
  w.line();
  w.line(`/** Wires ${iface} into the connector runtime (routes, parameter conversion). */`);
  writeList(w, `export function ${fn}(`, [`handlers: ${iface}`], `): ${serviceHandlers} {`);
  w.indented(() => {
    w.block(
      "return {",
      () => {
        w.line(`...${imports.useValue(`${CONNECTOR}/base-handlers`, "baseHandlers")}(handlers),`);
        if (type.isSuspendable)
          w.line("disable: (ctx) => handlers.disable(ctx),").line("enable: (ctx) => handlers.enable(ctx),");
        if (custom.length === 0) w.line("operations: {},");
        else
          w.block(
            "operations: {",
            () => {
              for (const op of custom) {
                const method = `handlers.${methodName(op.name)}`;
                const declared = operationNamesOf(names, op);
                w.block(
                  `${propertyKey(op.name)}: {`,
                  () => {
                    writeProperty(w, "verb", stringLiteral(op.verb));
                    writeProperty(w, "path", stringLiteral(op.path));
                    if (op.static) w.line("static: true,");
                    if (declared?.names.params) {
                      const parser = imports.useValue(
                        imports.relative(validatorModulePath(declared.owner)),
                        parserName(declared.owner, op.name),
                      );
                      const parsed = call(
                        imports.useValue(`${CONNECTOR}/replies`, "parsedParams"),
                        parser,
                        "ctx",
                        "body",
                      );
                      writeProperty(w, "handle", arrow("(ctx, body)", call(method, "ctx", parsed)));
                    } else {
                      // Without parameters there is nothing to convert or check.
                      writeProperty(w, "handle", arrow("(ctx)", call(method, "ctx")));
                    }
                  },
                  "},",
                );
              }
            },
            "},",
          );
      },
      "};",
    );
  });
  w.line("}");
}

function methodName(op: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(op) ? op : `op_${op.replace(/[^A-Za-z0-9_$]/g, "_")}`;
}
