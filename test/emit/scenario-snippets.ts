import { runInNewContext } from "node:vm";
import { buildRegistry } from "../../generator/emit/controller/registry-data.ts";
import { buildSchemaNames } from "../../generator/emit/openapi/schema-names.ts";
import type { ApsModel, ResolvedType } from "../../generator/model/model.ts";

/** The golden files of a scenario, one per emitter, in the order the tests compare them. */
export const SNIPPET_FILES = [
  "types.ts",
  "validators.ts",
  "client.ts",
  "connector.ts",
  "openapi.json",
  "registry.json",
] as const;
export type SnippetFile = (typeof SNIPPET_FILES)[number];

/**
 * What a build of one scenario package produced for the scenario's own types, per emitter:
 * their modules (the package's types, validators, client and connector modules whole, which declare the root too; not the other
 * emitters' index modules, not the core types), their OpenAPI schemas
 * and paths, their registry entries. The application root every package needs is left out,
 * unless it is the package's only type (the scenario about the root itself), so each golden
 * shows just the feature its scenario declares.
 */
export function scenarioSnippets(model: ApsModel, files: ReadonlyMap<string, string>): Map<SnippetFile, string> {
  const own = model.packages.filter((p) => !p.bundled);
  if (own.length !== 1)
    throw new Error(`a scenario is one package; this build has ${own.length}: ${own.map((p) => p.name).join(", ")}`);
  const pkg = own[0]!;
  const types = pkg.typeIds.map((id) => model.types.get(id)!);
  const featured = types.every((t) => t.isApplication) ? types : types.filter((t) => !t.isApplication);
  // Every emitter writes one module per package.
  const modules = (paths: readonly string[]) =>
    paths.map((path) => `// ===== ${path} =====\n${fileOf(files, path)}`).join("\n");
  return new Map<SnippetFile, string>([
    ["types.ts", modules([`types/${pkg.name}/index.gen.ts`])],
    ["validators.ts", modules([`validators/${pkg.name}/index.gen.ts`])],
    ["client.ts", modules([`client/${pkg.name}/index.gen.ts`])],
    ["connector.ts", modules([`connector/${pkg.name}/index.gen.ts`])],
    ["openapi.json", openApiSnippet(model, featured, fileOf(files, "openapi/openapi.gen.ts"))],
    ["registry.json", registrySnippet(model, featured)],
  ]);
}

function fileOf(files: ReadonlyMap<string, string>, path: string): string {
  const content = files.get(path);
  if (content === undefined) throw new Error(`the build wrote no ${path}; it wrote: ${[...files.keys()].join(", ")}`);
  return content;
}

/** The schemas named after the types (`X`, `XCreate`, `XUpdate`, `X.<structure>`) and the paths of their relations and custom operations. */
function openApiSnippet(model: ApsModel, featured: readonly ResolvedType[], module: string): string {
  const document = parseDocument(module) as {
    paths: Record<string, Record<string, unknown>>;
    components: { schemas: Record<string, unknown> };
  };
  const schemaNames = buildSchemaNames(model);
  const typeNames = featured.map((t) => schemaNames.type(t.id)!);
  const schemas = Object.entries(document.components.schemas).filter(([name]) =>
    typeNames.some((n) => [n, `${n}Create`, `${n}Update`].includes(name) || name.startsWith(`${n}.`)),
  );
  const relationPaths = new Set(
    featured.flatMap((t) =>
      [...t.relations.keys()].flatMap((r) => [`/aps/2/resources/{id}/${r}`, `/aps/2/resources/{id}/${r}/{targetId}`]),
    ),
  );
  const isOwnOperation = (item: Record<string, unknown>) =>
    Object.values(item).some(
      (op) =>
        typeof op === "object" &&
        op !== null &&
        "operationId" in op &&
        typeNames.some((n) => String(op.operationId).startsWith(`${n}_`)),
    );
  const paths = Object.entries(document.paths).filter(
    ([path, item]) => relationPaths.has(path) || isOwnOperation(item),
  );
  return printDocument({ paths: Object.fromEntries(paths), components: { schemas: Object.fromEntries(schemas) } });
}

/** The controller's registry entries of the types, without the declaration they carry (the scenario's own file). */
function registrySnippet(model: ApsModel, featured: readonly ResolvedType[]): string {
  const ids = new Set(featured.map((t) => t.id));
  const entries = buildRegistry(model)
    .filter((entry) => ids.has(entry.id))
    .map(({ declaration: _declaration, ...entry }) => entry);
  return `${printJson(entries)}\n`;
}

// The OpenAPI module is one object literal (keys unquoted where they may be, trailing commas,
// bigint literals for 64-bit integers beyond 2^53), evaluated as the expression it is. A bigint
// travels on as a marked string and is printed back as it was written.
const BIGINT = "\uE000bigint:";

function parseDocument(module: string): unknown {
  const literal = module.slice(module.indexOf("{", module.indexOf("=")), module.lastIndexOf("}") + 1);
  try {
    return markBigInts(runInNewContext(`(${literal})`));
  } catch (error) {
    throw new Error(
      `openapi/openapi.gen.ts no longer holds one object literal; update parseDocument in test/emit/scenario-snippets.ts (${String(error)})`,
    );
  }
}

function markBigInts(value: unknown): unknown {
  if (typeof value === "bigint") return `${BIGINT}${value}`;
  if (Array.isArray(value)) return value.map(markBigInts);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, markBigInts(v)]));
  return value;
}

function printDocument(document: unknown): string {
  return `${printJson(document).replace(new RegExp(`"${BIGINT}(-?\\d+)"`, "g"), "$1n")}\n`;
}

/** JSON with each object or array on one line when it fits in 100 columns, so a golden reads as a declaration does. */
function printJson(value: unknown, indent = "", column = 0): string {
  const flat = oneLine(value);
  if (typeof value !== "object" || value === null || column + flat.length <= 100) return flat;
  const inner = `${indent}  `;
  const items = Array.isArray(value)
    ? value.map((item) => `${inner}${printJson(item, inner, inner.length)}`)
    : Object.entries(value).map(
        ([key, item]) =>
          `${inner}${JSON.stringify(key)}: ${printJson(item, inner, inner.length + JSON.stringify(key).length + 2)}`,
      );
  return Array.isArray(value) ? `[\n${items.join(",\n")}\n${indent}]` : `{\n${items.join(",\n")}\n${indent}}`;
}

function oneLine(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(oneLine).join(", ")}]`;
  if (typeof value === "object" && value !== null)
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${oneLine(item)}`)
      .join(", ")}}`;
  return JSON.stringify(value);
}
