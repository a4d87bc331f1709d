import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.ts";
import { syncHandlerFile } from "../../cli/init/sync-handlers.ts";
import { repoRoot } from "../helpers/paths.ts";

/**
 * Issue 19 item 5: handler stubs follow the declarations. After `init`, the vendor writes the
 * bodies; when the declarations gain an operation, `init` again adds its stub to the existing
 * file and changes no byte of what the vendor wrote; an operation no longer declared is reported.
 */
const root = mkdtempSync(join(tmpdir(), "aps-init-sync-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** True when `after` is `before` with text inserted only (every byte of `before` kept, in order). */
function onlyInserted(before: string, after: string): boolean {
  let i = 0;
  for (const ch of after) if (ch === before[i]) i++;
  return i === before.length;
}

/** A copy of the cloudmail example in `packageName`, and `run` for `aps-gen init` of it into `projectName`, with its exit code and lines. */
function cloudmailProject(packageName: string, projectName: string) {
  const pkg = join(root, packageName);
  cpSync(join(repoRoot, "types/examples/cloudmail"), pkg, { recursive: true });
  const project = join(root, projectName);
  const run = async () => {
    const out: string[] = [];
    const code = await main(
      ["init", project, "--package", pkg],
      { out: (l) => out.push(l), err: (l) => out.push(l) },
      repoRoot,
    );
    return { code, out };
  };
  return { pkg, project, run };
}

describe("init keeps handler files in step with the declarations", () => {
  it("adds a stub for a newly declared operation, keeps the vendor's code byte for byte, reports a removed one", async () => {
    const { pkg, project, run } = cloudmailProject("cloudmail", "connector");
    expect((await run()).code).toBe(0);

    // The vendor fills in a body, with comments and their own formatting.
    const handlerPath = join(project, "src/handlers/mailboxes.ts");
    const vendor = readFileSync(handlerPath, "utf8").replace(
      / {2}changePassword: \(\) => notYet\("changePassword"\),/,
      [
        "  // Our own password service, see the ops runbook",
        "  async changePassword(ctx, params) {",
        "    void ctx;",
        "      return params.request !== undefined  ; // odd spacing kept",
        "  },",
      ].join("\n"),
    );
    expect(vendor).toContain("odd spacing kept");
    writeFileSync(handlerPath, vendor);

    // The declarations gain `resetQuota` and lose nothing yet.
    const schemaPath = join(pkg, "schemas/mailbox.schema");
    const schema = readFileSync(schemaPath, "utf8");
    writeFileSync(
      schemaPath,
      schema.replace(
        '"operations": {',
        '"operations": {\n        "resetQuota": { "name": "resetQuota", "verb": "POST", "path": "/resetQuota", "response": { "type": "boolean" }, "errorResponse": { "type": "http://cloudmail.example.com/types/cloudmail/1.0#ErrorInfo" } },',
      ),
    );
    const second = await run();
    expect(second.code, second.out.join("\n")).toBe(0);
    expect(second.out).toContain(
      "  added  resetQuota to src/handlers/mailboxes.ts (stubs; the rest of the file is as you left it)",
    );
    const synced = readFileSync(handlerPath, "utf8");
    expect(synced).toMatch(/\n {2}resetQuota: \(\) => notYet\("resetQuota"\),\n};/);
    expect(onlyInserted(vendor, synced)).toBe(true);
    expect(synced.replace('  resetQuota: () => notYet("resetQuota"),\n', "")).toBe(vendor);

    // Once in step, init leaves it alone.
    const third = await run();
    expect(third.out.some((l) => l.includes("added"))).toBe(false);
    expect(readFileSync(handlerPath, "utf8")).toBe(synced);

    // changePassword is no longer declared: reported, the vendor's body kept.
    writeFileSync(
      schemaPath,
      readFileSync(schemaPath, "utf8")
        .replace('"changePassword": {', '"changePasswordV2": {')
        .replace('"name": "changePassword"', '"name": "changePasswordV2"')
        .replace('"/changePassword"', '"/changePasswordV2"'),
    );
    const fourth = await run();
    expect(fourth.out.join("\n")).toMatch(
      /note {3}src\/handlers\/mailboxes\.ts: changePassword is no longer declared; left as it is/,
    );
    const after = readFileSync(handlerPath, "utf8");
    expect(after).toContain("odd spacing kept");
    expect(after).toContain('changePasswordV2: () => notYet("changePasswordV2"),');
    expect(onlyInserted(synced, after)).toBe(true);
  }, 60_000);

  it("points a handler file of a project made before one connector module per package at the package's module", async () => {
    const { project, run } = cloudmailProject("cloudmail-old", "connector-old");
    expect((await run()).code).toBe(0);
    const handlerPath = join(project, "src/handlers/mailboxes.ts");
    const current = readFileSync(handlerPath, "utf8");
    expect(current).toContain(
      'import type { MailboxesHandlers } from "../../generated/connector/cloudmail-old/index.gen.js";',
    );
    // As init wrote it when each service had its own module.
    const old = current.replace("/connector/cloudmail-old/index.gen.js", "/connector/cloudmail-old/mailboxes.gen.js");
    writeFileSync(handlerPath, old);
    const again = await run();
    expect(again.code, again.out.join("\n")).toBe(0);
    expect(again.out.join("\n")).toMatch(
      /note {3}src\/handlers\/mailboxes\.ts: imports from \.\.\/\.\.\/generated\/connector\/cloudmail-old\/index\.gen\.js now/,
    );
    expect(readFileSync(handlerPath, "utf8")).toBe(current);
    expect(readFileSync(join(project, "src/check.gen.ts"), "utf8")).toMatch(
      /import type \{[^}]*MailboxesHandlers[^}]*\} from "\.\.\/generated\/connector\/cloudmail-old\/index\.gen\.js";/,
    );
    const third = await run();
    expect(third.out.some((l) => l.includes("imports from"))).toBe(false);
    expect(third.out).toContain("  kept   src/handlers/mailboxes.ts (yours; not overwritten)");
  }, 60_000);

  it("inserts after a last member with no trailing comma, in an empty object, and leaves unreadable files alone", () => {
    const noComma = "export const tenants = {\n  provision() {\n    return {};\n  }\n};\n";
    expect(syncHandlerFile(noComma, "tenants", [{ name: "usage", stub: "() => 1" }]).text).toBe(
      "export const tenants = {\n  provision() {\n    return {};\n  },\n  usage: () => 1,\n};\n",
    );
    expect(syncHandlerFile("export const t = {};\n", "t", [{ name: "on-x", stub: "() => 1" }]).text).toBe(
      'export const t = {\n  "on-x": () => 1,\n};\n',
    );
    const spread = "export const t = { ...base };\n";
    const r = syncHandlerFile(spread, "t", [{ name: "a", stub: "() => 1" }]);
    expect(r.text).toBe(spread);
    expect(r.unreadable).toMatch(/spreads another one/);
    expect(syncHandlerFile("export function t() {}\n", "t", []).unreadable).toMatch(/no "export const t/);
  });
});
