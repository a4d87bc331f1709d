/**
 * The console (docs/console.md): `GET /console` and `GET /console/*`, the browser app's prebuilt
 * files (scripts/build-console.mjs), read once when the controller starts. The files hold no data:
 * the app signs in with a token and calls /aps/2 like any client, so loading them needs none.
 * Every reply carries a Content-Security-Policy that allows only the console's own script, style
 * and calls: a resource value the console shows can never run as script, even if it got past
 * the rendering (which writes values as text only).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Hono, type Context } from "hono";
import type { ControllerEnv } from "../context.ts";
import { packageRoot } from "../../common/package-root.ts";
import { ControllerError } from "../support/errors.ts";

/** The policy of every console reply (docs/console.md, "Content Security Policy"). */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".woff2": "font/woff2",
};

/** One file of the console, as it is sent. */
interface ConsoleFile {
  readonly body: Uint8Array;
  readonly type: string;
  readonly etag: string;
}

/**
 * Where the built console is: beside the compiled controller, dist/console (the published
 * package); from the sources, console/build (`npm install` runs `prepare`, which builds it) and
 * then dist/console. Undefined when neither is built.
 */
export function defaultConsoleFolder(moduleUrl: string = import.meta.url): string | undefined {
  const root = packageRoot(moduleUrl);
  const compiled = relative(root, fileURLToPath(moduleUrl)).split(sep)[0] === "dist";
  const candidates = compiled
    ? [join(root, "dist", "console"), join(root, "console", "build")]
    : [join(root, "console", "build"), join(root, "dist", "console")];
  return candidates.find((folder) => existsSync(join(folder, "index.html")));
}

/**
 * The console's routes over the files of `folder`, read now. Without a folder (not built) every
 * console path answers 404 saying so, rather than the controller refusing to start.
 */
export function consoleRoutes(folder: string | undefined): Hono<ControllerEnv> {
  const files = folder ? readFolder(folder) : new Map<string, ConsoleFile>();
  const app = new Hono<ControllerEnv>();
  // The controller routes `/console/` as `/console` (support/request-path.ts), so the path as
  // sent tells the two apart: `./app.js` in index.html must resolve below /console/.
  const serve = (c: Context<ControllerEnv>): Response => {
    const sent = new URL(c.req.url).pathname;
    if (sent === "/console") return c.redirect("/console/", 301);
    const path = sent.slice("/console/".length);
    const file = files.get(path === "" ? "index.html" : path);
    if (!file)
      throw new ControllerError(
        404,
        folder
          ? `The console has no file ${path}.`
          : "The console is not built in this installation: run npm run build:console (or npm install, whose prepare step builds it).",
      );
    const headers = {
      "content-security-policy": CONSOLE_CSP,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      // index.html names app.js and app.css without a version: revalidate each load (a 304 when
      // unchanged), so a new controller version never runs an old app against its API.
      "cache-control": "no-cache",
      etag: file.etag,
    };
    if (c.req.header("if-none-match") === file.etag) return c.body(null, 304, headers);
    return c.body(file.body as Uint8Array<ArrayBuffer>, 200, { ...headers, "content-type": file.type });
  };
  app.get("/console", serve);
  app.get("/console/*", serve);
  return app;
}

/** Every file under `folder` by its path relative to it, with `/` separators. */
function readFolder(folder: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const body = readFileSync(path);
        const etag = `"${body.byteLength.toString(36)}-${hash(body)}"`;
        files.set(relative(folder, path).split(sep).join("/"), {
          body,
          type: CONTENT_TYPES[extname(name)] ?? "application/octet-stream",
          etag,
        });
      }
    }
  };
  walk(folder);
  return files;
}

/** A short hash of the bytes for the ETag (FNV-1a: enough to tell two builds apart). */
function hash(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193);
  return (h >>> 0).toString(36);
}
