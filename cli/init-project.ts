import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { emitAll } from "../generator/build.ts";
import { isBaseOperation } from "../generator/model/base-operations.ts";
import { diskHost } from "../generator/host.ts";
import type { ApsModel, ModelPackage } from "../generator/model/model.ts";
import { kebabCase, pascalCase } from "../generator/emit/core/naming.ts";
import { packageBanner } from "../generator/emit/core/banner.ts";
import { packageRoot } from "../runtime/common/package-root.ts";

const APS_GEN_VERSION = (JSON.parse(readFileSync(join(packageRoot(import.meta.url), "package.json"), "utf8")) as { version: string }).version;

/** What `aps-gen init` wrote. */
export interface InitReport {
  readonly written: string[];
  /** Files that existed already and were left as they were (stubs are the vendor's). */
  readonly kept: string[];
  /** Existing handler files brought in line with the declarations: stubs added, members no longer declared. */
  readonly updated: { readonly file: string; readonly added: readonly string[]; readonly removed: readonly string[] }[];
  /** Things init could not do for the vendor, one line each (a handler file it cannot read, a service main.ts does not start). */
  readonly notes: string[];
}

/** Members of a handler object that are not custom operations (see the generated `<Service>Handlers`). */
const BASE_HANDLER_MEMBERS = new Set(["provision", "configure", "unprovision", "disable", "enable", "links"]);

/**
 * Scaffolds a vendor connector project for one application package: generated types,
 * validators and connector interfaces under `generated/` (rebuilt by `npm run build`), one
 * handler stub per service under `src/handlers/` (written once, never overwritten), a check
 * file that makes `tsc` fail when a stub no longer satisfies its interface, a start script
 * and a test. `npm install && npm start` runs it.
 */
export async function initProject(model: ApsModel, pkg: ModelPackage, dir: string, packageInput: string): Promise<InitReport> {
  const root = resolve(dir);
  const written: string[] = [];
  const kept: string[] = [];
  const updated: InitReport["updated"] = [];
  const notes: string[] = [];
  const write = (rel: string, text: string, once: boolean) => {
    const path = join(root, rel);
    if (once && existsSync(path)) {
      kept.push(rel);
      return;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    written.push(rel);
  };
  const services = pkg.typeIds
    .map((id) => model.types.get(id)!)
    .filter((t) => t.decl.service && t.isResource)
    .map((t) => ({ type: t, service: t.decl.service!, iface: `${pascalCase(t.decl.service!)}Handlers`, file: kebabCase(t.decl.service!) || "service" }));
  const appName = pascalCase(pkg.name.split("/").at(-1)!);
  const servicesFn = `${appName[0]!.toLowerCase()}${appName.slice(1)}Services`;
  const connectorIndex = `../generated/connector/${pkg.name}/index.gen.js`;
  const packagePath = relative(root, resolve(packageInput)) || ".";

  write(
    "package.json",
    `${JSON.stringify(
      {
        // The application's name as APP-META.xml gives it, not the folder's (which is often "package" or "src").
        name: `${kebabCase(pkg.metaName ?? appName) || "aps"}-connector`,
        private: true,
        type: "module",
        scripts: {
          build: `aps-gen build --types ${packagePath} --out generated`,
          start: "node --import tsx src/main.ts",
          dev: "node --watch --import tsx src/main.ts",
          test: "tsc --noEmit -p . && node --import tsx --test test/*.test.ts",
        },
        // The published version range, so the project installs anywhere (never a path into this machine).
        dependencies: { "aps-gen": `^${APS_GEN_VERSION}`, tsx: "^4.23.15" },
        devDependencies: { typescript: "6.0.3", "@types/node": "20.19.43" },
      },
      null,
      2,
    )}\n`,
    true,
  );
  write(
    "tsconfig.json",
    `${JSON.stringify({ compilerOptions: { target: "es2022", lib: ["es2023"], module: "nodenext", moduleResolution: "nodenext", strict: true, noEmit: true, allowImportingTsExtensions: true, verbatimModuleSyntax: true, skipLibCheck: true, types: ["node"] }, include: ["src", "generated", "test"] }, null, 2)}\n`,
    true,
  );
  for (const s of services) {
    const ops = [...s.type.operations.values()].filter((op) => !isBaseOperation(op, s.type, model));
    const lines = [
      `// The ${s.service} service of ${pkg.name}: fill in the bodies. aps-gen never overwrites this file;`,
      `// src/check.gen.ts makes tsc fail when it no longer matches ${s.iface}.`,
      `import type { ${s.iface} } from "${connectorIndex.replace("index.gen.js", `${s.file}.gen.js`).replace("../", "../../")}";`,
      `import { ConnectorError } from "aps-gen/runtime/connector/replies";`,
      "",
      `const notYet = (what: string): never => {`,
      "  throw new ConnectorError(501, `${what} is not implemented yet`);",
      "};",
      "",
      `export const ${camel(s.service)}: ${s.iface} = {`,
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
      ...ops.map((op) => `  ${/^[A-Za-z_$][\w$]*$/.test(op.name) ? op.name : JSON.stringify(op.name)}: () => notYet(${JSON.stringify(op.name)}),`),
      "};",
      "",
    ];
    const handlerFile = `src/handlers/${s.file}.ts`;
    if (existsSync(join(root, handlerFile))) {
      // The vendor's file: add stubs for operations declared since, report those gone, keep every byte.
      const text = readFileSync(join(root, handlerFile), "utf8");
      const hasNotYet = /\b(const|function)\s+notYet\b/.test(text);
      const expected = ops.map((op) => ({ name: op.name, stub: hasNotYet ? `() => notYet(${JSON.stringify(op.name)})` : `() => {\n    throw new Error(${JSON.stringify(`${op.name} is not implemented yet`)});\n  }` }));
      // ts-morph is loaded only here: a first init and every other command go without it.
      const { syncHandlerFile } = await import("./sync-handlers.ts");
      const sync = syncHandlerFile(text, camel(s.service), expected);
      const removed = sync.removed.filter((name) => !BASE_HANDLER_MEMBERS.has(name));
      if (sync.unreadable) notes.push(`${handlerFile}: not updated, since ${sync.unreadable}; add ${expected.map((e) => e.name).join(", ") || "nothing"} by hand if missing`);
      else if (sync.added.length || removed.length) {
        if (sync.added.length) writeFileSync(join(root, handlerFile), sync.text);
        updated.push({ file: handlerFile, added: sync.added, removed });
      } else kept.push(handlerFile);
      continue;
    }
    write(handlerFile, lines.join("\n"), true);
  }
  write(
    "src/main.ts",
    [
      `// Starts the ${pkg.name} connector over HTTPS. Give the controller the printed URL and CA`,
      "// certificate when you install an instance (POST /aps/2/instances).",
      'import { createConnectorApp } from "aps-gen/runtime/connector/app";',
      'import { fileCredentialStore } from "aps-gen/runtime/connector/credentials";',
      'import { startConnector } from "aps-gen/runtime/connector/serve";',
      'import { ensureConnectorTls } from "aps-gen/runtime/connector/tls";',
      `import { ${servicesFn} } from "${connectorIndex}";`,
      // Aliased: a service is often called "app" (most PHP packages), "host" or "port", which
      // would clash with the locals below.
      ...services.map((s) => `import { ${camel(s.service)} as ${camel(s.service)}Handlers } from "./handlers/${s.file}.ts";`),
      "",
      'const host = process.env.HOST ?? "127.0.0.1";',
      "const port = Number(process.env.PORT ?? 8444);",
      'const tls = await ensureConnectorTls(".connector-data", [host]);',
      `const connector = createConnectorApp({ services: ${servicesFn}({ ${services.map((s) => `${JSON.stringify(s.service)}: ${camel(s.service)}Handlers`).join(", ")} }), credentials: fileCredentialStore(".connector-data/credentials") });`,
      "const running = await startConnector(connector, { ...tls.server, host, port });",
      'console.log(`connector on ${running.url}; endpoint CA certificate: ${tls.caCertPath}`);',
      'process.on("SIGTERM", () => void running.close());',
      'process.on("SIGINT", () => void running.close());',
      "",
    ].join("\n"),
    true,
  );
  write(
    "test/connector.test.ts",
    [
      'import { test } from "node:test";',
      'import assert from "node:assert/strict";',
      ...services.slice(0, 1).map((s) => `import { ${camel(s.service)} } from "../src/handlers/${s.file}.ts";`),
      "",
      `test("the ${services[0]?.service ?? "first"} handlers answer a provisioning", async () => {`,
      ...(services[0]
        ? [
            `  const ctx = { instanceId: "i-1", phase: "sync" as const, params: {}, query: {} };`,
            `  const reply = await ${camel(services[0].service)}.provision(ctx, { aps: { id: "r-1", type: ${JSON.stringify(services[0].type.id)} } } as never);`,
            "  assert.equal(typeof reply, \"object\");",
          ]
        : ["  assert.ok(true);"]),
      "});",
      "",
    ].join("\n"),
    true,
  );
  const outDir = join(root, "generated");
  const files = emitAll(model);
  // The stub check lives outside generated/ (builds manage that folder); init rewrites it.
  write(
    "src/check.gen.ts",
    [
      packageBanner(model, pkg),
      "// tsc fails here when a handler stub no longer satisfies its generated interface.",
      ...services.map((s) => `import type { ${s.iface} } from "../generated/connector/${pkg.name}/${s.file}.gen.js";`),
      ...services.map((s) => `import { ${camel(s.service)} } from "./handlers/${s.file}.ts";`),
      "",
      ...services.map((s) => `${camel(s.service)} satisfies ${s.iface};`),
      "",
    ].join("\n"),
    false,
  );
  diskHost(outDir).apply(files);
  written.push(`generated/ (${files.length} files)`);
  // main.ts is written once: a service declared since is not started until the vendor adds it.
  if (kept.includes("src/main.ts")) {
    const main = readFileSync(join(root, "src/main.ts"), "utf8");
    for (const s of services) if (!main.includes(`./handlers/${s.file}.ts`)) notes.push(`src/main.ts does not import ./handlers/${s.file}.ts: pass ${camel(s.service)} to ${servicesFn}(...) there to serve the new service "${s.service}"`);
  }
  return { written, kept, updated, notes };
}

function camel(service: string): string {
  const p = pascalCase(service);
  return `${p[0]!.toLowerCase()}${p.slice(1)}` || "service";
}
