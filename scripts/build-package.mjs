// Builds the published package into dist/: tsc emits ESM JavaScript and declarations from
// cli/, generator/ and runtime/ (tsconfig.build.json), then the declarations' relative imports are
// given the .js ending the JavaScript has (tsc keeps a source's .ts specifiers in .d.ts files,
// which a consumer's tsc refuses: TS5097), and the migrations (SQL read at run time) are copied
// beside the compiled store. Run by `npm run build` and before `npm pack` / `npm publish`.
import { spawnSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const started = performance.now();
rmSync(dist, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")], { stdio: "inherit" });
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
console.log(`dist/ built: ${declarations} declaration files, migrations copied · ${((performance.now() - started) / 1000).toFixed(1)} s`);

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else yield path;
  }
}
