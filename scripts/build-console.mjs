// Builds the browser console (docs/console.md) from console/ into the folder given as argument:
// index.html, app.js (console/src/main.tsx with Preact, bundled and minified, ES2022 modules, plus
// a chunk per page split off with import()) and app.css. The controller serves that folder as it is
// (runtime/controller/routes/console.ts): nothing is built at run time and nothing comes from a CDN.
// Run by `prepare` (into console/build/) and by scripts/build-package.mjs (into dist/console/).
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Builds the console into `outdir` (emptied first); resolves with esbuild's metafile. */
export async function buildConsole(outdir) {
  const esbuild = await import("esbuild");
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await esbuild.build({
    entryPoints: [
      { in: join(root, "console/src/main.tsx"), out: "app" },
      { in: join(root, "console/src/app.css"), out: "app" },
    ],
    bundle: true,
    splitting: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    minify: true,
    jsx: "automatic",
    jsxImportSource: "preact",
    tsconfig: join(root, "console/tsconfig.json"),
    outdir,
    chunkNames: "chunks/[name]-[hash]",
    // The console and the client runtime under it read the build's own mode only.
    define: { "process.env.NODE_ENV": '"production"' },
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
  });
  copyFileSync(join(root, "console/index.html"), join(outdir, "index.html"));
  return result.metafile;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const out = process.argv[2];
  if (!out) {
    console.error("usage: node scripts/build-console.mjs <output folder>");
    process.exit(2);
  }
  const started = performance.now();
  await buildConsole(resolve(out));
  console.log(`console built into ${out} · ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
