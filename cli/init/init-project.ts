import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { diskHost, emitAll, type ApsModel, type ModelPackage } from "../../generator/index.ts";
import { mergeEditorSettings, settingsToAdd } from "./editor-settings.ts";
import {
  connectorTest,
  handlerImport,
  handlerStub,
  mainScript,
  planScaffold,
  projectPackageJson,
  projectTsconfig,
  stubCheck,
  type ScaffoldPlan,
  type ScaffoldService,
} from "./init-scaffold.ts";

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
 * file that makes `tsc` fail when a stub no longer satisfies its interface, a start script,
 * a test, and VS Code settings that check declaration files against aps-gen's schema.
 * `npm install && npm start` runs it.
 */
export async function initProject(
  model: ApsModel,
  pkg: ModelPackage,
  dir: string,
  packageInput: string,
): Promise<InitReport> {
  const plan = planScaffold(model, pkg, dir, packageInput);
  const project = new ProjectWriter(plan.root);
  project.write("package.json", projectPackageJson(plan), true);
  project.write("tsconfig.json", projectTsconfig(), true);
  for (const s of plan.services) await writeOrSyncHandlers(plan, s, project);
  project.write("src/main.ts", mainScript(plan), true);
  project.write("test/connector.test.ts", connectorTest(plan), true);
  const files = emitAll(model);
  // The stub check lives outside generated/ (builds manage that folder); init rewrites it.
  project.write("src/check.gen.ts", stubCheck(plan), false);
  diskHost(join(plan.root, "generated")).apply(files);
  project.report.written.push(`generated/ (${files.length} files)`);
  writeEditorSettings(project);
  noteServicesMainDoesNotStart(plan, project);
  return project.report;
}

/** The project folder as init changes it, and the report of what it did. */
class ProjectWriter {
  readonly report: InitReport = { written: [], kept: [], updated: [], notes: [] };

  constructor(readonly root: string) {}

  /** Writes `rel`; with `once`, a file that exists is the vendor's and is kept as it is. */
  write(rel: string, text: string, once: boolean): void {
    const path = join(this.root, rel);
    if (once && existsSync(path)) {
      this.report.kept.push(rel);
      return;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    this.report.written.push(rel);
  }
}

/** A service's handler file: a new stub, or the vendor's file given stubs for operations declared since. */
async function writeOrSyncHandlers(plan: ScaffoldPlan, s: ScaffoldService, project: ProjectWriter): Promise<void> {
  const handlerFile = `src/handlers/${s.file}.ts`;
  if (!existsSync(join(plan.root, handlerFile))) {
    project.write(handlerFile, handlerStub(plan, s), true);
    return;
  }
  // The vendor's file: add stubs for operations declared since, report those gone, keep every byte
  // but the specifier of the generated module when it names the per-service module builds no
  // longer write (before one connector module per package).
  const original = readFileSync(join(plan.root, handlerFile), "utf8");
  const { specifier, oldSpecifier } = handlerImport(plan, s);
  const text = original
    .replaceAll(`"${oldSpecifier}"`, `"${specifier}"`)
    .replaceAll(`'${oldSpecifier}'`, `'${specifier}'`);
  const { report } = project;
  if (text !== original) {
    writeFileSync(join(plan.root, handlerFile), text);
    report.notes.push(
      `${handlerFile}: imports from ${specifier} now (the per-service module ${oldSpecifier} is no longer generated)`,
    );
  }
  const hasNotYet = /\b(const|function)\s+notYet\b/.test(text);
  const expected = s.operations.map((op) => ({
    name: op.name,
    stub: hasNotYet
      ? `() => notYet(${JSON.stringify(op.name)})`
      : `() => {\n    throw new Error(${JSON.stringify(`${op.name} is not implemented yet`)});\n  }`,
  }));
  // ts-morph is loaded only here: a first init and every other command go without it.
  const { syncHandlerFile } = await import("./sync-handlers.ts");
  const sync = syncHandlerFile(text, s.handlers, expected);
  const removed = sync.removed.filter((name) => !BASE_HANDLER_MEMBERS.has(name));
  if (sync.unreadable)
    report.notes.push(
      `${handlerFile}: not updated, since ${sync.unreadable}; add ${expected.map((e) => e.name).join(", ") || "nothing"} by hand if missing`,
    );
  else if (sync.added.length || removed.length) {
    if (sync.added.length) writeFileSync(join(plan.root, handlerFile), sync.text);
    report.updated.push({ file: handlerFile, added: sync.added, removed });
  } else if (text === original) report.kept.push(handlerFile);
}

/**
 * `.vscode/settings.json`: declaration files checked against the schema aps-gen ships. The
 * vendor's file gains only what it lacks; one it cannot merge safely is left alone, with a note
 * saying what to add.
 */
function writeEditorSettings(project: ProjectWriter): void {
  const rel = ".vscode/settings.json";
  const path = join(project.root, rel);
  const existing = existsSync(path) ? readFileSync(path, "utf8") : undefined;
  const merge = mergeEditorSettings(existing);
  if ("problem" in merge) {
    project.report.notes.push(
      `${rel}: not changed, since ${merge.problem}; to check declaration files in VS Code, add ${settingsToAdd()}`,
    );
  } else if (merge.text === undefined) {
    project.report.kept.push(rel);
  } else if (existing === undefined) {
    project.write(rel, merge.text, false);
  } else {
    writeFileSync(path, merge.text);
    project.report.notes.push(
      `${rel}: added ${merge.added.join(", ")} for the declaration schema; the rest is as you left it`,
    );
  }
}

/** main.ts is written once: a service declared since is not started until the vendor adds it. */
function noteServicesMainDoesNotStart(plan: ScaffoldPlan, project: ProjectWriter): void {
  if (!project.report.kept.includes("src/main.ts")) return;
  const main = readFileSync(join(plan.root, "src/main.ts"), "utf8");
  for (const s of plan.services) {
    if (!main.includes(`./handlers/${s.file}.ts`))
      project.report.notes.push(
        `src/main.ts does not import ./handlers/${s.file}.ts: pass ${s.handlers} to ${plan.servicesFn}(...) there to serve the new service "${s.service}"`,
      );
  }
}
