import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONSOLE_CSP } from "../../runtime/controller/routes/console.ts";
import { buildConsole } from "../../scripts/build-console.mjs";
import { startBehaviourController, type BehaviourController } from "./harness.ts";

/**
 * The console's files (routes/console.ts, docs/console.md): built by scripts/build-console.mjs,
 * served without a token under a strict CSP, 404 with `serve --no-console`.
 */
describe("console assets", () => {
  const folder = mkdtempSync(join(tmpdir(), "aps-console-build-"));
  let on: BehaviourController;
  let off: BehaviourController;

  beforeAll(async () => {
    await buildConsole(folder);
    [on, off] = await Promise.all([
      startBehaviourController("pglite", ["types/examples/cloudmail"], { console: { folder } }),
      startBehaviourController("pglite", ["types/examples/cloudmail"], { console: false }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([on?.dispose(), off?.dispose()]);
    rmSync(folder, { recursive: true, force: true });
  });

  it("serves index.html at /console/ with no token, under the CSP", async () => {
    const reply = await on.request("/console/", { headers: { "aps-token": "" } });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(reply.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(reply.headers.get("x-content-type-options")).toBe("nosniff");
    expect(reply.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await reply.text();
    expect(html).toBe(readFileSync(join(folder, "index.html"), "utf8"));
    // Nothing inline for the CSP to refuse: scripts and styles are files of /console/.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).toContain('src="./app.js"');
  });

  it("serves app.js and app.css with their types, and answers 304 to a matching ETag", async () => {
    const js = await on.request("/console/app.js", { headers: { "aps-token": "" } });
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("content-security-policy")).toBe(CONSOLE_CSP);
    expect(await js.text()).toBe(readFileSync(join(folder, "app.js"), "utf8"));
    const css = await on.request("/console/app.css", { headers: { "aps-token": "" } });
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    const etag = css.headers.get("etag")!;
    expect(etag).toMatch(/^".+"$/);
    const again = await on.request("/console/app.css", { headers: { "aps-token": "", "if-none-match": etag } });
    expect(again.status).toBe(304);
    const changed = await on.request("/console/app.css", { headers: { "aps-token": "", "if-none-match": '"other"' } });
    expect(changed.status).toBe(200);
  });

  it("redirects /console to /console/, so the page's relative paths resolve below it", async () => {
    const reply = await on.request("/console", { headers: { "aps-token": "" }, redirect: "manual" });
    expect(reply.status).toBe(301);
    expect(reply.headers.get("location")).toBe("/console/");
  });

  it("answers 404 for a file it does not have, and never serves outside its folder", async () => {
    for (const path of [
      "/console/nothing.js",
      "/console/../package.json",
      "/console/%2e%2e/package.json",
      "/console/chunks/",
    ]) {
      const reply = await on.request(path, { headers: { "aps-token": "" } });
      expect(reply.status, path).toBe(404);
    }
  });

  it("serves nothing with --no-console", async () => {
    for (const path of ["/console/", "/console", "/console/app.js"]) {
      const reply = await off.request(path, { headers: { "aps-token": "" }, redirect: "manual" });
      expect(reply.status, path).toBe(404);
    }
    // Nor the live log of calls it feeds (nor are calls kept for it); the API itself is unchanged.
    expect((await off.request("/aps/2/console/calls")).status).toBe(404);
    expect((await on.request("/aps/2/console/calls", { headers: { "aps-token": "" } })).status).toBe(401);
    expect((await off.request("/aps/2/types")).status).toBe(200);
  });
});
