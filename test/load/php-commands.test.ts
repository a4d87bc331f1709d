import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../cli/main.ts";
import { compileArchive } from "../../cli/serve/package-import/package-compiler.ts";
import { actorNamed } from "../../runtime/common/actor.ts";
import { PackageRejected } from "../../runtime/controller/packages/catalog.ts";
import { repoRoot } from "../helpers/paths.ts";
import { typecheck } from "../helpers/typecheck.ts";
import { filesOf } from "../helpers/files-of.ts";

/** A package whose every service is declared in PHP only (its <schema> files are not built). */
const MAILHOST = "test/fixtures/php/mailhost";
const TENANT = "http://fixtures.example/mailhost/tenant/1.0";

const root = mkdtempSync(join(tmpdir(), "aps-gen-php-commands-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, repoRoot);
  return { code, out, err };
}

describe("the other commands take a PHP-annotated package", () => {
  it("build writes types, validators, connector and client that type-check", async () => {
    const out = join(root, "generated");
    const r = await run("build", "--types", MAILHOST, "--out", out);
    expect(r.code, [...r.out, ...r.err].join("\n")).toBe(0);
    expect(r.out.join("\n")).toContain("mailhost: 3 of 3 services loaded");
    const files = (readdirSync(out, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts")).sort();
    // Types, validators, connector and client are one module per package.
    for (const f of [
      "types/mailhost/index.gen.ts",
      "validators/mailhost/index.gen.ts",
      "connector/mailhost/index.gen.ts",
      "client/mailhost/index.gen.ts",
    ]) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => f.startsWith("connector/") || f.startsWith("client/mailhost/"))).toEqual([
      "client/mailhost/index.gen.ts",
      "connector/mailhost/index.gen.ts",
    ]);
    expect(typecheck(files.filter((f) => f.includes("mailhost")).map((f) => join(out, f)))).toEqual([]);
    // @return(Quota, text/json) is JSON of Quota everywhere, not a raw reply.
    // The operations' types are declared once in the types module; connector and client import them.
    const types = readFileSync(join(out, "types/mailhost/index.gen.ts"), "utf8");
    expect(types).toContain("export type TenantsQuotaReply = Quota;");
    expect(types).toContain("export type TenantsSetQuotaReply = Quota;");
    const connector = readFileSync(join(out, "connector/mailhost/index.gen.ts"), "utf8");
    expect(connector).toContain(
      "quota(ctx: ApsCallContext, params: TenantsQuotaParams): MaybePromise<TenantsQuotaReply>;",
    );
    expect(connector).toContain(
      "setQuota(ctx: ApsCallContext, params: TenantsSetQuotaParams): MaybePromise<TenantsSetQuotaReply>;",
    );
    expect(connector).not.toContain("RawReply");
    const client = readFileSync(join(out, "client/mailhost/index.gen.ts"), "utf8");
    expect(client).toMatch(/Promise<TenantsQuotaReply>/);
  });

  it("validate checks a body against a PHP-declared type", async () => {
    const good = join(root, "good.json");
    const bad = join(root, "bad.json");
    writeFileSync(
      good,
      JSON.stringify({ domain: "example.com", plan: "pro", quotas: [{ name: "mailboxes", limit: 10 }] }),
    );
    writeFileSync(bad, JSON.stringify({ plan: "gold", quotas: [{ limit: "ten" }] }));
    const ok = await run("validate", "--types", MAILHOST, "--type", TENANT, good);
    expect(ok.code, [...ok.out, ...ok.err].join("\n")).toBe(0);
    const no = await run("validate", "--types", MAILHOST, "--type", "tenants", "--format", "json", bad);
    expect(no.code).toBe(1);
    const errors = (JSON.parse(no.out.join("\n")) as { errors: { path: string }[] }).errors.map((e) => e.path).sort();
    expect(errors).toEqual(["/domain", "/plan", "/quotas/0/limit", "/quotas/0/name"]);
  });

  it("a package import (compileArchive, what POST /aps/2/packages runs) compiles an .app.zip of it", async () => {
    const compiled = await compileArchive(zipSync(filesOf(join(repoRoot, MAILHOST))), "mailhost");
    expect(compiled.appId).toBe("http://fixtures.example/mailhost");
    expect(compiled.types.map((t) => t.id).sort()).toEqual([
      "http://fixtures.example/mailhost/app/1.0",
      "http://fixtures.example/mailhost/mailbox/1.0",
      TENANT,
    ]);
    const tenant = compiled.validators.get(TENANT)!;
    expect(tenant.validateCreate({ domain: "example.com" }, actorNamed("owner"))).toEqual([]);
    expect(
      tenant
        .validateCreate({ plan: "gold" }, actorNamed("owner"))
        .map((e) => e.path)
        .sort(),
    ).toEqual(["/domain", "/plan"]);
    expect(Object.keys(tenant.operations).sort()).toEqual(["onMailboxChanged", "quota", "setQuota"]);
    // Its scripts travel with it, as in any package.
    expect(new TextDecoder().decode(compiled.files.read("scripts/tenants.php"))).toContain("class tenants");
  });

  it("a package import of a PHP package with an error is refused, naming the PHP line", async () => {
    const files = filesOf(join(repoRoot, MAILHOST));
    files["scripts/mailboxes.php"] = new TextEncoder().encode(
      new TextDecoder().decode(files["scripts/mailboxes.php"]).replace('@unit("mb")', '@unit("parsecs")'),
    );
    const refused = await compileArchive(zipSync(files), "mailhost").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(PackageRejected);
    expect((refused as PackageRejected).diagnostics.join("\n")).toMatch(
      /mailhost\.app\.zip\/scripts\/mailboxes\.php:\d+:\d+ - error APS045/,
    );
  });
});
