/**
 * postgres.js 3.4.x ends the process when a query is sent on a connection whose server end went
 * away (scripts/postgres-write-guard.mjs). A controller worker did exactly that when PostgreSQL
 * restarted under load; the connection it was handed by the cluster was then never answered.
 * Shown here in child processes (a crash must not take the test runner with it): with the guard,
 * a query on a reserved connection whose backend was terminated, and a transaction whose
 * connection died, are rejected with CONNECTION_CLOSED and the process lives on; with the
 * driver's own text (the guard undone), the same script dies of the TypeError.
 *
 * It also ends the process when the array-types query every new connection starts with fails:
 * a controller restarted behind HAProxy did, when its replica poll timed out on a loaded machine
 * and the poll connection, still starting, was closed. Shown with a proxy that holds the server's
 * answer to that query while the pool is ended with a time-out of 0.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/paths.ts";
// @ts-expect-error: a plain ES module script without declarations
import { guardConnectionSource, isGuarded } from "../../scripts/postgres-write-guard.mjs";

const databaseUrl = process.env.DATABASE_URL;
const installedSrc = dirname(
  createRequire(join(repoRoot, "package.json"))
    .resolve("postgres")
    .replace(/[\\/]cjs[\\/]src[\\/]index\.js$/, "/src/index.js"),
);
const guardedText = readFileSync(join(installedSrc, "connection.js"), "utf8");

const TYPES_GUARD = ".catch(noop) // aps-gen guard (scripts/postgres-write-guard.mjs)";

/** The guarded text but for the edit that handles the array-types query's failure. */
function withoutTypesGuard(text: string): string {
  return text.replace(TYPES_GUARD, "");
}

/** The driver's own text: the guard's edits taken out again (the test below checks that guarding it gives the installed text back). */
function unguarded(text: string): string {
  return withoutTypesGuard(text)
    .replace(/\n {4}\/\* aps-gen write guard \*\/\n {4}if \(!socket\) \{\n[\s\S]*?\n {4}\}\n/, "\n")
    .replaceAll(
      "    clearImmediate(nextWriteTimer)\n    chunk = nextWriteTimer = null\n",
      "    clearImmediate(nextWriteTimer)\n",
    );
}

const SCRIPT = (driver: string, url: string) => `
import postgres from ${JSON.stringify(driver)};
const sql = postgres(${JSON.stringify(url)}, { max: 2, onnotice: () => {} });
const admin = postgres(${JSON.stringify(url)}, { max: 1, onnotice: () => {} });
const within = (p) => Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error("no answer in 5 s")), 5000))]);
const reserved = await sql.reserve();
const [{ pid }] = await reserved\`select pg_backend_pid() as pid\`;
await admin\`select pg_terminate_backend(\${pid})\`;
await new Promise((r) => setTimeout(r, 200));
try { await within(reserved\`select 1\`); console.log("reserved: answered"); } catch (e) { console.log("reserved: " + (e.code ?? e.message)); }
try {
  await within(sql.begin(async (tx) => {
    const [{ pid }] = await tx\`select pg_backend_pid() as pid\`;
    await admin\`select pg_terminate_backend(\${pid})\`;
    await new Promise((r) => setTimeout(r, 200));
    await tx\`select 1\`;
  }));
  console.log("transaction: committed");
} catch (e) { console.log("transaction: " + (e.code ?? e.message)); }
const [{ ok }] = await within(sql\`select 1 as ok\`);
console.log("pool afterwards: " + ok);
await new Promise((r) => setTimeout(r, 300));
process.exit(0);
`;

/** A pool whose one connection is closed by `end({ timeout: 0 })` while its array-types query waits for the server. */
const TYPES_SCRIPT = (driver: string, url: string) => `
import net from "node:net";
import postgres from ${JSON.stringify(driver)};
const target = new URL(${JSON.stringify(url)});
let held = false;
const proxy = net.createServer((client) => {
  const server = net.connect(Number(target.port || 5432), target.hostname);
  client.on("data", (d) => { if (d.includes("typarray")) held = true; server.write(d); });
  server.on("data", (d) => { if (!held) client.write(d); });
  for (const s of [client, server]) s.on("error", () => {});
  client.on("close", () => server.destroy());
  server.on("close", () => client.destroy());
});
await new Promise((r) => proxy.listen(0, "127.0.0.1", r));
const viaProxy = new URL(target);
viaProxy.hostname = "127.0.0.1";
viaProxy.port = String(proxy.address().port);
const sql = postgres(viaProxy.toString(), { max: 1, onnotice: () => {} });
const opening = sql\`select 1 as ok\`.then(() => "answered", (e) => e.code ?? e.message);
while (!held) await new Promise((r) => setTimeout(r, 10));
await sql.end({ timeout: 0 });
console.log("opening query: " + (await opening));
await new Promise((r) => setTimeout(r, 300));
console.log("alive");
process.exit(0);
`;

describe("postgres.js write guard", () => {
  const scratch = mkdtempSync(join(tmpdir(), "aps-pg-guard-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("is applied to the installed driver, and is exactly the guard's edits", () => {
    expect(isGuarded(guardedText), "npm ci runs `prepare` (scripts/postgres-write-guard.mjs)").toBe(true);
    const original = unguarded(guardedText);
    expect(isGuarded(original)).toBe(false);
    expect(guardConnectionSource(original)).toBe(guardedText);
    expect(guardConnectionSource(guardedText)).toBe(guardedText);
    expect(() => guardConnectionSource("export default 1")).toThrow(/has changed/);
  });

  const run = (driverFolder: string, script = SCRIPT) => {
    const file = join(scratch, `script-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(file, script(pathToFileURL(join(driverFolder, "index.js")).href, databaseUrl!));
    return spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 60_000 });
  };

  it.skipIf(!databaseUrl)("rejects queries on a connection whose server end is gone, and the process lives on", () => {
    const guarded = run(installedSrc);
    expect(guarded.stderr).not.toMatch(/TypeError/);
    expect(guarded.status, guarded.stderr).toBe(0);
    expect(guarded.stdout).toContain("reserved: CONNECTION_CLOSED");
    expect(guarded.stdout).toContain("transaction: CONNECTION_CLOSED");
    expect(guarded.stdout).toContain("pool afterwards: 1");
  });

  it.skipIf(!databaseUrl)("without the guard, the same script ends its process (what the guard is for)", () => {
    const copy = join(scratch, "postgres-src");
    cpSync(installedSrc, copy, { recursive: true });
    writeFileSync(join(copy, "connection.js"), unguarded(guardedText));
    const bare = run(copy);
    expect(bare.status).not.toBe(0);
    expect(bare.stderr).toMatch(/TypeError: Cannot read properties of null \(reading 'write'\)/);
  });

  it.skipIf(!databaseUrl)(
    "lets a pool end while a new connection's array-types query is unanswered: its opening query is rejected, the process lives on",
    () => {
      const guarded = run(installedSrc, TYPES_SCRIPT);
      expect(guarded.status, guarded.stderr).toBe(0);
      expect(guarded.stdout).toContain("opening query: CONNECTION_DESTROYED");
      expect(guarded.stdout).toContain("alive");
    },
  );

  it.skipIf(!databaseUrl)(
    "without that edit, the same script ends its process with the unhandled CONNECTION_DESTROYED",
    () => {
      const copy = join(scratch, "postgres-src-types");
      cpSync(installedSrc, copy, { recursive: true });
      writeFileSync(join(copy, "connection.js"), withoutTypesGuard(guardedText));
      const bare = run(copy, TYPES_SCRIPT);
      expect(bare.status).not.toBe(0);
      expect(bare.stdout).not.toContain("alive");
      expect(bare.stderr).toMatch(/CONNECTION_DESTROYED/);
    },
  );
});
