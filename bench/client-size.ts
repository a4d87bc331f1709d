// Client size report: what the browser-facing client runtime (runtime/client, without the
// Node-only node-tls.ts) and one generated SDK module weigh once bundled for a browser with
// esbuild, minified and gzipped (level 9). Target: each under 5 kB gzipped. Run:
// npm run size:client. The numbers are informational: the process exits 0 unless a bundle
// fails to build (which is worth failing on: a browser could not use the client then).
//
// Each entry re-exports every value its modules export, listed by loading the modules, so the
// bundle is the whole runtime rather than whatever one app would keep after tree-shaking. The
// SDK bundle is the other view: Mailbox's functions from the cloudmail package's client module
// (the rest of the module left to tree-shaking), plus only the runtime they import, through the
// same `aps-gen/runtime/client/...` specifiers (package.json "exports") an application uses.
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";

const repoRoot = fileURLToPath(new URL("../", import.meta.url));
/** 5 kB as bundle-size tools count it (1 kB = 1000 bytes), compared with the gzipped size. */
const TARGET_BYTES = 5_000;

const RUNTIME_MODULES = ["client", "pages", "rql", "aps-error", "content-range", "subscriptions"].map(
  (m) => `./runtime/client/${m}.ts`,
);
const SDK_MODULE = "./generated/client/examples/cloudmail/index.gen.ts";

/**
 * Mailbox's client functions in the package's client module (`getMailbox`, `listMailboxes`,
 * `linkMailboxTenant`, `mailboxQuery`, `mailboxChangePassword`), not other types' that name
 * mailboxes (`listTenantMailboxes`, `tenantImportMailboxes`): what an application calling
 * Mailbox's functions imports, the rest of the module left to tree-shaking.
 */
const isMailboxFunction = (name: string) =>
  /^[a-z]+Mailbox(?:es)?(?:[A-Z]\w*)?$/.test(name) || /^mailbox[A-Z]/.test(name);

interface SizeRow {
  readonly name: string;
  readonly exports: number;
  readonly inputs: readonly string[];
  readonly raw: number;
  readonly minified: number;
  readonly gzipped: number;
}

/** `export { a, b } from "<module>"` for every value export, aliased where two modules share a name. */
async function reexportEverything(
  modules: readonly string[],
  pick: (name: string) => boolean = () => true,
): Promise<{ contents: string; count: number }> {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const module of modules) {
    const names = Object.keys(await import(pathToFileURL(`${repoRoot}${module}`).href))
      .filter(pick)
      .sort();
    const specifiers = names.map((n) => {
      const alias = seen.has(n) ? `${n}$${module.replace(/\W+/g, "_")}` : n;
      seen.add(alias);
      return alias === n ? n : `${n} as ${alias}`;
    });
    lines.push(`export { ${specifiers.join(", ")} } from ${JSON.stringify(module)};`);
  }
  return { contents: lines.join("\n"), count: seen.size };
}

async function bundle(contents: string, minify: boolean): Promise<{ bytes: Uint8Array; metafile: Metafile }> {
  const result = await build({
    stdin: { contents, resolveDir: repoRoot, sourcefile: "size-entry.ts", loader: "ts" },
    absWorkingDir: repoRoot,
    bundle: true,
    minify,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return { bytes: result.outputFiles[0]!.contents, metafile: result.metafile };
}

async function measure(name: string, modules: readonly string[], pick?: (name: string) => boolean): Promise<SizeRow> {
  const entry = await reexportEverything(modules, pick);
  const raw = await bundle(entry.contents, false);
  const minified = await bundle(entry.contents, true);
  return {
    name,
    exports: entry.count,
    inputs: Object.keys(minified.metafile.inputs).filter((p) => p !== "size-entry.ts"),
    raw: raw.bytes.length,
    minified: minified.bytes.length,
    gzipped: gzipSync(minified.bytes, { level: 9 }).length,
  };
}

const bytes = (n: number) => `${n.toLocaleString("en-US")} B`.padStart(10);

try {
  const rows = [
    await measure("client runtime (browser)", RUNTIME_MODULES),
    await measure("SDK Mailbox's functions + runtime", [SDK_MODULE], isMailboxFunction),
  ];
  console.log(
    `esbuild, platform browser, format esm, target es2022; gzip level 9; target < ${TARGET_BYTES.toLocaleString("en-US")} B gzipped\n`,
  );
  console.log(
    `${"bundle".padEnd(34)} ${"exports".padStart(7)} ${"raw".padStart(10)} ${"minified".padStart(10)} ${"gzipped".padStart(10)}  target`,
  );
  for (const r of rows) {
    const ok = r.gzipped < TARGET_BYTES;
    console.log(
      `${r.name.padEnd(34)} ${String(r.exports).padStart(7)} ${bytes(r.raw)} ${bytes(r.minified)} ${bytes(r.gzipped)}  ${ok ? "✓" : "✗"} ${((r.gzipped / TARGET_BYTES) * 100).toFixed(0)}% of 5 kB`,
    );
  }
  console.log("");
  for (const r of rows) console.log(`${r.name}: ${r.inputs.join(", ")}`);
} catch (error) {
  console.error(`✗ a client bundle did not build: ${(error as Error).message}`);
  process.exit(1);
}
