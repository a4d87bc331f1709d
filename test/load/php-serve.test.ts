import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killHard, serveProcess, type ServeProcess } from "../e2e/serve-process.ts";
import { filesOf } from "../helpers/files-of.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { repoRoot } from "../helpers/paths.ts";

/**
 * `aps-gen serve --types <PHP package>` as a real process, and package import (POST
 * /aps/2/packages) of an .app.zip whose types are declared only in PHP annotations: the same
 * loader as `check`, behind the controller's HTTPS API.
 */
const TENANT = "http://fixtures.example/mailhost/tenant/1.0";
const WIDGET = "http://fixtures.example/phpwidgets/widget/1.0";

const dataDir = mkdtempSync(join(tmpdir(), "aps-gen-php-serve-"));
let serve: ServeProcess;
let call: ReturnType<typeof httpsClient>;
let token: string;

beforeAll(async () => {
  // serveProcess always loads types/examples/cloudmail; the PHP package comes on top of it.
  serve = await serveProcess(dataDir, undefined, ["--types", "test/fixtures/php/mailhost"]);
  const url = await serve.url;
  call = httpsClient(url, readFileSync(join(dataDir, "tls/ca.crt"), "utf8"));
  token = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
}, 120_000);
afterAll(async () => {
  if (serve) await killHard(serve);
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (archive: Uint8Array) =>
  call("POST", "/aps/2/packages", { token, rawBody: archive, headers: { "content-type": "application/zip" } });

describe("PHP-annotated packages in a running controller", () => {
  it("serve --types serves the types a PHP package declares, and validates their resources", async () => {
    const type = await call("GET", `/aps/2/types/${encodeURIComponent(TENANT)}`, { token });
    expect(type.status, type.text).toBe(200);
    // The name is the PHP class name, as aps build writes it.
    expect(type.json.name).toBe("tenants");
    const packages = await call("GET", "/aps/2/packages", { token });
    expect(packages.json.find((p: { types: string[] }) => p.types.includes(TENANT))).toMatchObject({ origin: "types" });
    // plan is an @option enum in the PHP; "gold" is not among them.
    const bad = await call("POST", "/aps/2/resources", {
      token,
      body: { aps: { type: TENANT }, domain: "example.com", plan: "gold" },
    });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.text).toContain("/plan");
  });

  it("imports an .app.zip declared in PHP: its types are usable at once", async () => {
    expect((await call("GET", `/aps/2/types/${encodeURIComponent(WIDGET)}`, { token })).status).toBe(404);
    const imported = await post(zipSync(filesOf(join(repoRoot, "test/fixtures/php/full"))));
    expect(imported.status, imported.text).toBe(201);
    expect(imported.json).toMatchObject({ origin: "imported", types: expect.arrayContaining([WIDGET]) });
    const widget = await call("GET", `/aps/2/types/${encodeURIComponent(WIDGET)}`, { token });
    expect(widget.status).toBe(200);
    expect(Object.keys(widget.json.operations)).toContain("ping");
    expect((await call("POST", "/aps/2/resources", { token, body: { aps: { type: WIDGET }, bogus: 1 } })).status).toBe(
      400,
    );
    // The scripts travel with the package.
    const script = await call("GET", `/aps/2/packages/${imported.json.id}/scripts/widgets.php`, { token });
    expect(script.status).toBe(200);
    expect(script.text).toContain("@type(");
  });

  it("refuses a PHP package whose annotations have an error, naming the PHP line, and stores nothing", async () => {
    const files = filesOf(join(repoRoot, "test/fixtures/php/mailhost"));
    const text = new TextDecoder().decode(files["scripts/mailboxes.php"]).replace('@unit("mb")', '@unit("parsecs")');
    files["scripts/mailboxes.php"] = new TextEncoder().encode(text);
    // Another application id, so that the refusal is about the annotation, not a duplicate.
    files["APP-META.xml"] = new TextEncoder().encode(
      new TextDecoder()
        .decode(files["APP-META.xml"]!)
        .replaceAll("fixtures.example/mailhost", "fixtures.example/mailhost2"),
    );
    for (const name of Object.keys(files)) {
      if (name.endsWith(".php"))
        files[name] = new TextEncoder().encode(
          new TextDecoder().decode(files[name]!).replaceAll("fixtures.example/mailhost", "fixtures.example/mailhost2"),
        );
    }
    const before = (await call("GET", "/aps/2/packages", { token })).json.length;
    const refused = await post(zipSync(files));
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json.details.map((d: { message: string }) => d.message).join("\n")).toMatch(
      /scripts\/mailboxes\.php:\d+:\d+ - error APS045/,
    );
    expect((await call("GET", "/aps/2/packages", { token })).json).toHaveLength(before);
  });
});
