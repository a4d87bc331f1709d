/**
 * What `aps-gen init` scaffolds for an application package: its services and the names the
 * project uses for them, and the text of each file it writes (cli/init/init-project.ts writes them).
 * Pure: nothing here reads or writes the disk but the version of aps-gen itself.
 */
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import {
  connectorSurface,
  kebabCase,
  packageBanner,
  pascalCase,
  specifierList,
  type ApsModel,
  type ModelPackage,
  type Operation,
  type ResolvedType,
} from "../../generator/index.ts";
import { packageRoot } from "../../runtime/common/package-root.ts";

const APS_GEN_VERSION = (
  JSON.parse(readFileSync(join(packageRoot(import.meta.url), "package.json"), "utf8")) as { version: string }
).version;

/** A service of the package (a resource type with APP-META `<service>`), as the project names it. */
export interface ScaffoldService {
  readonly type: ResolvedType;
  readonly service: string;
  /** The generated interface its handlers satisfy: `<Service>Handlers`. */
  readonly iface: string;
  /** The file stem of its handler file (and of the generated module each service had before one per package). */
  readonly file: string;
  /** The exported name of its handler object (`mailboxes`). */
  readonly handlers: string;
  /** The custom operations a handler object implements besides the base ones. */
  readonly operations: readonly Operation[];
}

/** The project init writes for one package, and the names its files share. */
export interface ScaffoldPlan {
  readonly model: ApsModel;
  readonly pkg: ModelPackage;
  /** The project folder, absolute. */
  readonly root: string;
  readonly services: readonly ScaffoldService[];
  readonly appName: string;
  /** The generated function that wires every service (`cloudmailServices`). */
  readonly servicesFn: string;
  /** The generated connector module of the package, as src/main.ts imports it. */
  readonly connectorIndex: string;
  /** The package's folder or archive relative to the project, for its `build` script. */
  readonly packagePath: string;
}

export function planScaffold(model: ApsModel, pkg: ModelPackage, dir: string, packageInput: string): ScaffoldPlan {
  const root = resolve(dir);
  // The names the generated connector module declares (unique in it), not spelt again here.
  const connector = connectorSurface(model, pkg);
  const services = connector.services.map(
    (s): ScaffoldService => ({
      type: s.type,
      service: s.service,
      iface: s.iface,
      file: kebabCase(s.service) || "service",
      handlers: camel(s.service),
      operations: s.customOperations,
    }),
  );
  const appName = pascalCase(pkg.name.split("/").at(-1)!);
  return {
    model,
    pkg,
    root,
    services,
    appName,
    servicesFn: connector.servicesFn,
    connectorIndex: `../generated/${connector.modulePath.replace(/\.ts$/, ".js")}`,
    packagePath: relative(root, resolve(packageInput)) || ".",
  };
}

export function projectPackageJson(plan: ScaffoldPlan): string {
  const project = {
    // The application's name as APP-META.xml gives it, not the folder's (which is often "package" or "src").
    name: `${kebabCase(plan.pkg.metaName ?? plan.appName) || "aps"}-connector`,
    private: true,
    type: "module",
    scripts: {
      build: `aps-gen build --types ${plan.packagePath} --out generated`,
      start: "node --import tsx src/main.ts",
      dev: "node --watch --import tsx src/main.ts",
      test: "tsc --noEmit -p . && node --import tsx --test test/*.test.ts",
    },
    // The published version range, so the project installs anywhere (never a path into this machine).
    dependencies: { "aps-gen": `^${APS_GEN_VERSION}`, tsx: "^4.23.15" },
    devDependencies: { typescript: "6.0.3", "@types/node": "20.19.43" },
  };
  return `${JSON.stringify(project, null, 2)}\n`;
}

export function projectTsconfig(): string {
  const compilerOptions = {
    target: "es2022",
    lib: ["es2023"],
    module: "nodenext",
    moduleResolution: "nodenext",
    strict: true,
    noEmit: true,
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    skipLibCheck: true,
    types: ["node"],
  };
  return `${JSON.stringify({ compilerOptions, include: ["src", "generated", "test"] }, null, 2)}\n`;
}

/**
 * How a handler file imports its interface: from the package's connector module. Init before
 * one connector module per package wrote the per-service module's path, `oldSpecifier`.
 */
export function handlerImport(
  plan: ScaffoldPlan,
  s: ScaffoldService,
): { readonly specifier: string; readonly oldSpecifier: string } {
  return {
    specifier: `../${plan.connectorIndex}`,
    oldSpecifier: `../${plan.connectorIndex.replace(/index\.gen\.js$/, `${s.file}.gen.js`)}`,
  };
}

/** `src/handlers/<service>.ts` as init first writes it: one stub per member, the vendor's from then on. */
export function handlerStub(plan: ScaffoldPlan, s: ScaffoldService): string {
  return [
    `// The ${s.service} service of ${plan.pkg.name}: fill in the bodies. aps-gen never overwrites this file;`,
    `// src/check.gen.ts makes tsc fail when it no longer matches ${s.iface}.`,
    `import type { ${s.iface} } from "${handlerImport(plan, s).specifier}";`,
    `import { ConnectorError } from "aps-gen/runtime/connector/replies";`,
    "",
    `const notYet = (what: string): never => {`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal of the generated handler file.
    "  throw new ConnectorError(501, `${what} is not implemented yet`);",
    "};",
    "",
    `export const ${s.handlers}: ${s.iface} = {`,
    "  provision(ctx, resource) {",
    `    // Create the ${s.type.name} in your system; return the properties to store (e.g. its id there).`,
    "    void ctx;",
    "    void resource;",
    "    return {};",
    "  },",
    "  configure(_ctx, _changes) {",
    "    return {};",
    "  },",
    "  unprovision(_ctx) {},",
    ...(s.type.isSuspendable ? ["  disable(_ctx) {},", "  enable(_ctx) {},"] : []),
    ...s.operations.map(
      (op) =>
        `  ${/^[A-Za-z_$][\w$]*$/.test(op.name) ? op.name : JSON.stringify(op.name)}: () => notYet(${JSON.stringify(op.name)}),`,
    ),
    "};",
    "",
  ].join("\n");
}

/** `src/main.ts`: the connector over HTTPS with every service's handlers. */
export function mainScript(plan: ScaffoldPlan): string {
  const { services, servicesFn } = plan;
  return [
    `// Starts the ${plan.pkg.name} connector over HTTPS. Give the controller the printed URL and CA`,
    "// certificate when you install an instance (POST /aps/2/instances).",
    'import { createConnectorApp } from "aps-gen/runtime/connector/app";',
    'import { fileCredentialStore } from "aps-gen/runtime/connector/credentials";',
    'import { startConnector } from "aps-gen/runtime/connector/serve";',
    'import { ensureConnectorTls } from "aps-gen/runtime/connector/tls";',
    `import { ${servicesFn} } from "${plan.connectorIndex}";`,
    // Aliased: a service is often called "app" (most PHP packages), "host" or "port", which
    // would clash with the locals below.
    ...services.map((s) => `import { ${s.handlers} as ${s.handlers}Handlers } from "./handlers/${s.file}.ts";`),
    "",
    'const host = process.env.HOST ?? "127.0.0.1";',
    "const port = Number(process.env.PORT ?? 8444);",
    'const tls = await ensureConnectorTls(".connector-data", [host]);',
    `const connector = createConnectorApp({ services: ${servicesFn}({ ${services.map((s) => `${JSON.stringify(s.service)}: ${s.handlers}Handlers`).join(", ")} }), credentials: fileCredentialStore(".connector-data/credentials") });`,
    "const running = await startConnector(connector, { ...tls.server, host, port });",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal of the generated server file.
    "console.log(`connector on ${running.url}; endpoint CA certificate: ${tls.caCertPath}`);",
    'process.on("SIGTERM", () => void running.close());',
    'process.on("SIGINT", () => void running.close());',
    "",
  ].join("\n");
}

/** `test/connector.test.ts`: the first service's handlers answer a provisioning. */
export function connectorTest(plan: ScaffoldPlan): string {
  const first = plan.services[0];
  return [
    'import { test } from "node:test";',
    'import assert from "node:assert/strict";',
    ...(first ? [`import { ${first.handlers} } from "../src/handlers/${first.file}.ts";`] : []),
    "",
    `test("the ${first?.service ?? "first"} handlers answer a provisioning", async () => {`,
    ...(first
      ? [
          `  const ctx = { instanceId: "i-1", phase: "sync" as const, params: {}, query: {} };`,
          `  const reply = await ${first.handlers}.provision(ctx, { aps: { id: "r-1", type: ${JSON.stringify(first.type.id)} } } as never);`,
          '  assert.equal(typeof reply, "object");',
        ]
      : ["  assert.ok(true);"]),
    "});",
    "",
  ].join("\n");
}

/** `src/check.gen.ts`, rewritten by every init: tsc fails there when a stub no longer satisfies its interface. */
export function stubCheck(plan: ScaffoldPlan): string {
  const { services } = plan;
  return [
    packageBanner(plan.model, plan.pkg),
    "// tsc fails here when a handler stub no longer satisfies its generated interface.",
    ...(services.length
      ? [
          specifierList(
            "import type ",
            services.map((s) => s.iface),
            ` from "${plan.connectorIndex}";`,
          ),
        ]
      : []),
    ...services.map((s) => `import { ${s.handlers} } from "./handlers/${s.file}.ts";`),
    "",
    ...services.map((s) => `${s.handlers} satisfies ${s.iface};`),
    "",
  ].join("\n");
}

function camel(service: string): string {
  const p = pascalCase(service);
  return `${p[0]!.toLowerCase()}${p.slice(1)}` || "service";
}
