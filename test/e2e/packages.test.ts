import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { repoRoot } from "../helpers/paths.ts";
import { zipFolder } from "../helpers/zip-folder.ts";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "./controller-harness.ts";

const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
const VPS = "http://vpscloud.example.net/types/vps/1.1";

describe.each(databases)("packages on %s", (kind) => {
  let t: ControllerUnderTest;
  let customer: string;
  let importedId: string;
  const vpscloud = zipFolder(join(repoRoot, "types/examples/vpscloud"));

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail"]);
    const account = await t.call("POST", "/aps/2/resources", {
      token: t.adminToken,
      body: { aps: { type: ACCOUNT }, companyName: "C", addressPostal: {} },
    });
    customer = await new TokenService(loadKeys(t.dataDir).token).mint({ accountId: account.json.aps.id });
  }, 60_000);
  afterAll(async () => t?.dispose());

  const post = (token: string, archive: Uint8Array | string, contentType = "application/zip") =>
    t.call("POST", "/aps/2/packages", { token, rawBody: archive, headers: { "content-type": contentType } });

  it("lists the packages it started with, with APP-META.xml and files, and no way out", async () => {
    const list = await t.call("GET", "/aps/2/packages", { token: customer });
    expect(list.status).toBe(200);
    const cloudmail = list.json.find((p: { name: string }) => p.name === "CloudMail");
    expect(cloudmail).toMatchObject({
      origin: "types",
      types: expect.arrayContaining(["http://cloudmail.example.com/types/mailbox/1.0"]),
    });
    const meta = await t.call("GET", `/aps/2/packages/${cloudmail.id}/APP-META.xml`, { token: customer });
    expect(meta.status).toBe(200);
    expect(meta.text).toContain("http://aps-standard.org/ns/2");
    expect(meta.headers["content-security-policy"]).toBe("sandbox");
    for (const outside of [
      "../../package.json",
      "..%2F..%2Fpackage.json",
      "%2Fetc%2Fpasswd",
      "schemas/..%2F..%2F..%2Fpackage.json",
    ]) {
      expect(
        (await t.call("GET", `/aps/2/packages/${cloudmail.id}/${outside}`, { token: customer })).status,
        outside,
      ).toBe(404);
    }
    expect((await t.call("GET", "/aps/2/packages/nope", { token: customer })).status).toBe(404);
  });

  it("imports an .app.zip while running: its types are usable at once", async () => {
    expect((await t.call("GET", `/aps/2/types/${encodeURIComponent(VPS)}`, { token: customer })).status).toBe(404);
    const imported = await post(t.adminToken, vpscloud);
    expect(imported.status, imported.text).toBe(201);
    expect(imported.json).toMatchObject({ origin: "imported", types: expect.arrayContaining([VPS]) });
    importedId = imported.json.id;
    expect((await t.call("GET", `/aps/2/types/${encodeURIComponent(VPS)}`, { token: customer })).json.name).toBe("Vps");
    const types = await t.call(
      "GET",
      `/aps/2/types?implementing(${encodeURIComponent("http://aps-standard.org/types/core/resource/1.0")})`,
      { token: customer },
    );
    expect(types.json.map((x: { id: string }) => x.id)).toContain(VPS);
    // Its types belong to an application: validated, then 502 until applications can be called.
    expect(
      (await t.call("POST", "/aps/2/resources", { token: customer, body: { aps: { type: VPS }, bogus: 1 } })).status,
    ).toBe(400);
    const file = await t.call("GET", `/aps/2/packages/${imported.json.id}/APP-META.xml`, { token: customer });
    expect(file.status).toBe(200);
    // The same types again are a conflict, not a silent replacement.
    expect((await post(t.adminToken, vpscloud)).status).toBe(409);
  });

  it("keeps an imported package: a restarted controller (PGlite) or another instance (PostgreSQL) serves it from the stored archive", async () => {
    // On PGlite, looking at the rows stops the controller and starts it again on its data.
    const [stored] = await t.sql(
      `select count(*)::int as parts, sum(length(bytes))::int as bytes from package_archive_parts where package_id = '${importedId}'`,
    );
    expect(stored).toEqual({ parts: 1, bytes: vpscloud.length });
    const other = kind === "postgres" ? await t.second() : undefined;
    try {
      const call = other?.call ?? t.call;
      expect((await call("GET", `/aps/2/types/${encodeURIComponent(VPS)}`, { token: customer })).json.name).toBe("Vps");
      const meta = await call("GET", `/aps/2/packages/${importedId}/APP-META.xml`, { token: customer });
      expect(meta.status).toBe(200);
      expect(meta.text).toBe(readFileSync(join(repoRoot, "types/examples/vpscloud/APP-META.xml"), "utf8"));
    } finally {
      await other?.close();
    }
  });

  it("refuses bad packages with diagnostics naming file and line, and stores nothing", async () => {
    const broken = zipFolder(join(repoRoot, "types/examples/vpscloud"), {
      "schemas/snapshot.schema":
        '{\n  "apsVersion": "2.0",\n  "name": "Snapshot",\n  "id": "http://vpscloud.example.net/types/snapshot/2.0",\n  "properties": { "size": { "type": "integer", "default": "big" } }\n}\n',
    });
    const r = await post(t.adminToken, broken);
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/error\(s\) in its declarations/);
    expect(r.json.details.map((d: { message: string }) => d.message).join("\n")).toMatch(
      /\.app\.zip\/schemas\/snapshot\.schema:\d+:\d+ - error APS\d{3}/,
    );
    expect((await post(t.adminToken, "not a zip at all")).status).toBe(400);
    expect((await post(t.adminToken, new Uint8Array())).status).toBe(400);
    expect((await post(t.adminToken, vpscloud, "text/plain")).status).toBe(415);
    expect((await post(customer, vpscloud)).status).toBe(403);
    const list = await t.call("GET", "/aps/2/packages", { token: customer });
    expect(list.json.filter((p: { origin: string }) => p.origin === "imported")).toHaveLength(1);
  });

  it.runIf(kind === "postgres")("makes imported packages usable on every instance sharing the database", async () => {
    const other = await t.second();
    try {
      const seen = await other.call("GET", `/aps/2/types/${encodeURIComponent(VPS)}`, { token: customer });
      expect(seen.status).toBe(200);
      expect(
        (await other.call("POST", "/aps/2/resources", { token: customer, body: { aps: { type: VPS }, bogus: 1 } }))
          .status,
      ).toBe(400);
    } finally {
      await other.close();
    }
  });
});
