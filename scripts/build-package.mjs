// Builds the published package into dist/: tsc emits ESM JavaScript and declarations from
// cli/, generator/ and runtime/ (tsconfig.build.json), then the declarations' relative imports are
// given the .js ending the JavaScript has (tsc keeps a source's .ts specifiers in .d.ts files,
// which a consumer's tsc refuses: TS5097), and the migrations (SQL read at run time) are copied
// beside the compiled store, and the console is built into dist/console. Run by `npm run build` and before `npm pack` / `npm publish`.
// tsc emits without type-checking (--noCheck: the same files, in half the time): `npm test` and
// `npm run typecheck` check them, and the output is byte for byte what a checking tsc emits.
import { spawnSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildConsole } from "./build-console.mjs";
import { guardConnectionSource, guardInstalled } from "./postgres-write-guard.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const started = performance.now();
rmSync(dist, { recursive: true, force: true });
const tsc = spawnSync(
  process.execPath,
  [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json"), "--noCheck"],
  { stdio: "inherit" },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

let declarations = 0;
for (const file of walk(dist)) {
  if (!file.endsWith(".d.ts")) continue;
  const text = readFileSync(file, "utf8");
  const fixed = text.replace(/(from\s+|import\s*\(\s*)(["'])(\.{1,2}\/[^"']*?)\.ts\2/g, "$1$2$3.js$2");
  if (fixed !== text) writeFileSync(file, fixed);
  declarations++;
}
const migrations = "runtime/controller/store/migrations";
cpSync(join(root, migrations), join(dist, migrations), { recursive: true });
vendorGuardedPostgres();
await bundleCli();
// The console's files, served as they are by runtime/controller/routes/console.ts.
await buildConsole(join(dist, "console"));
console.log(
  `dist/ built: ${declarations} declaration files, migrations copied, CLI bundled, console built · ${((performance.now() - started) / 1000).toFixed(1)} s`,
);

/**
 * The CLI as the installed `aps-gen` runs it: dist/cli-bundle/, the command modules and the
 * generator with their pure-JavaScript dependencies (yargs, the config reader, the JSON and XML
 * parsers) in a few chunks, because loading ~120 small modules was most of what `check` cost
 * (0.42 s of CPU against 0.27 s bundled; `tsc --version` takes 0.15-0.2 s). Each command's work
 * stays a chunk of its own, loaded when it runs. What runs the controller or loads files next
 * to itself stays outside, imported from dist/ as it is: the controller and connector runtimes
 * (migrations, worker threads), serve, init, the package-import worker, and packages that are
 * large, native or load their own files (PGlite, esbuild, TypeScript, ts-morph, php-parser...).
 */
async function bundleCli() {
  const esbuild = await import("esbuild");
  const outdir = join(dist, "cli-bundle");
  const separate =
    /[\\/]dist[\\/](runtime[\\/](controller|connector)|cli[\\/](serve[\\/]serve-model|serve[\\/]package-import|validate[\\/]load-validators|init[\\/]init-project|init[\\/]sync-handlers|build[\\/]watch))/;
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const bundled = new Set([
    "yargs",
    "lilconfig",
    "jsonc-parser",
    "@xmldom/xmldom",
    "fflate",
    "fastest-levenshtein",
    "lossless-json",
    "@babel/code-frame",
  ]);
  await esbuild.build({
    entryPoints: [join(dist, "cli/main.js")],
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outdir,
    mainFields: ["module", "main"],
    external: Object.keys(pkg.dependencies).filter((name) => !bundled.has(name)),
    // Bundled CommonJS dependencies call require(): give the ESM chunks one.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
    logLevel: "warning",
    plugins: [
      {
        name: "separate-modules",
        setup(build) {
          build.onResolve({ filter: /^\./ }, (args) => {
            const path = resolve(args.resolveDir, args.path);
            return separate.test(path)
              ? { path: `./${relative(outdir, path).split("\\").join("/")}`, external: true }
              : undefined;
          });
        },
      },
    ],
  });
}

/**
 * The controller's copy of postgres.js (ESM build, no dependencies of its own) with the write
 * guard applied (scripts/postgres-write-guard.mjs says why), and the driver module pointed at it:
 * an installed aps-gen is guarded whether or not its installer ran any install script.
 */
function vendorGuardedPostgres() {
  const { root: installed } = guardInstalled(root);
  const vendor = join(dist, "vendor/postgres");
  cpSync(join(installed, "src"), vendor, { recursive: true });
  const connection = join(vendor, "connection.js");
  writeFileSync(connection, guardConnectionSource(readFileSync(connection, "utf8")));
  const { version, license } = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
  writeFileSync(
    join(vendor, "README.md"),
    `postgres.js ${version} (${license}, https://github.com/porsager/postgres), src/ with the write guard of aps-gen's scripts/postgres-write-guard.mjs.\n`,
  );
  const driver = join(dist, "runtime/controller/store/postgres-driver.js");
  const text = readFileSync(driver, "utf8");
  const pointed = text.replace(
    /from\s*(["'])postgres\1/,
    `from "${relative(dirname(driver), join(vendor, "index.js")).split("\\").join("/")}"`,
  );
  if (pointed === text) throw new Error(`${driver}: no import of postgres to point at the guarded copy`);
  writeFileSync(driver, pointed);
}

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
