/**
 * Issue 16 item 5: `GET /aps/2/types/{id}` answers the type as its declaration says it (APS JSON,
 * every attribute as written: `access` an object, counters by their structure type, `enum`,
 * `unit`...), own members only with `implements` naming the direct parents (runtime/controller/
 * type-document.ts says why). Connect and FallBall read `id`, `implements`,
 * `properties[*].type` containing "Counter" and `properties.resource.enum` from it
 * (platform-forms row 40); the Connect extension lists types with the short FIQL form
 * `aps/2/types?id=<type id>`, the id not encoded (hub/services.py:921-928).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "jsonc-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases } from "../e2e/controller-harness.ts";
import { startInProcessController, type InProcessController } from "../fuzz/in-process-controller.ts";
import { repoRoot } from "../helpers/paths.ts";

const TENANT = "http://cloudmail.example.com/types/tenant/1.0";
const USER = "http://aps-standard.org/types/core/user/1.0";
const CONTACT = "http://aps-standard.org/types/core/contact/1.2";

const declared = (file: string) => parse(readFileSync(join(repoRoot, file), "utf8")) as Record<string, unknown>;

describe.each(databases)("type documents as declared on %s", (kind) => {
  let c: InProcessController;
  beforeAll(async () => {
    c = await startInProcessController(kind, ["types/examples/cloudmail"]);
  }, 60_000);
  afterAll(async () => c?.dispose());

  it("GET /aps/2/types/{id} is the declaration file's JSON, with aps.href where it is served", async () => {
    const r = await c.request(`/aps/2/types/${encodeURIComponent(TENANT)}`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as Record<string, unknown>;
    expect(body).toEqual({
      aps: { id: TENANT, href: `/aps/2/types/${encodeURIComponent(TENANT)}` },
      ...declared("types/examples/cloudmail/schemas/tenant.schema"),
    });
    // What the Connect extension and FallBall look for.
    const counters = Object.entries(body.properties as Record<string, { type: string }>)
      .filter(([, p]) => p.type.includes("Counter"))
      .map(([n]) => n);
    expect(counters).toEqual(["mailboxCount", "storage"]);
    // access as the object written, not the controller's role bits.
    const mailbox = (await c
      .request(`/aps/2/types/${encodeURIComponent("http://cloudmail.example.com/types/mailbox/1.0")}`)
      .then((x) => x.json())) as { properties: Record<string, { access?: unknown }> };
    expect(Object.values(mailbox.properties).find((p) => p.access)?.access).toEqual(
      expect.objectContaining({ owner: expect.any(Boolean) }),
    );
  });

  it("a child lists its own members and its direct parents only (core/user implements contact/1.2)", async () => {
    const user = (await c.request(`/aps/2/types/${encodeURIComponent(USER)}`).then((x) => x.json())) as {
      implements: string[];
      properties: Record<string, unknown>;
    };
    expect(user.implements).toEqual(declared("types/core/user.schema").implements);
    expect(user.implements).toContain(CONTACT);
    expect(Object.keys(user.properties)).toEqual(Object.keys(declared("types/core/user.schema").properties as object));
    expect(user.properties).not.toHaveProperty("email");
    const contact = (await c.request(`/aps/2/types/${encodeURIComponent(CONTACT)}`).then((x) => x.json())) as {
      properties: Record<string, unknown>;
    };
    expect(contact.properties).toHaveProperty("email");
  });

  it("the path form with the id's // unencoded and a trailing slash finds it too; an unknown id is a 404", async () => {
    expect(((await c.request(`/aps/2/types/${TENANT}`).then((x) => x.json())) as { id: string }).id).toBe(TENANT);
    expect(
      ((await c.request(`/aps/2/types/${encodeURIComponent(TENANT)}/`).then((x) => x.json())) as { id: string }).id,
    ).toBe(TENANT);
    const missing = await c.request(
      `/aps/2/types/${encodeURIComponent("http://cloudmail.example.com/types/tenant/9.0")}`,
    );
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { message: string }).message).toMatch(/not known/);
  });

  it("aps/2/types?id=<type id> (short FIQL, not encoded) lists that type; RQL lists keep working", async () => {
    const r = await c.request(`/aps/2/types?id=${TENANT}`);
    expect(r.status, await r.clone().text()).toBe(200);
    const list = (await r.json()) as { id: string; properties: object }[];
    expect(list.map((t) => t.id)).toEqual([TENANT]);
    expect(list[0]!.properties).toEqual(declared("types/examples/cloudmail/schemas/tenant.schema").properties);
    expect(await c.request(`/aps/2/types?id=${encodeURIComponent(TENANT)}`).then((x) => x.json())).toHaveLength(1);
    expect(
      await c.request("/aps/2/types?id=http://cloudmail.example.com/types/none/1.0").then((x) => x.json()),
    ).toEqual([]);
    expect(
      ((await c.request(`/aps/2/types?name=Tenant&id=${TENANT}`).then((x) => x.json())) as { id: string }[]).map(
        (t) => t.id,
      ),
    ).toEqual([TENANT]);
    const rql = (await c.request(`/aps/2/types?eq(name,Tenant)`).then((x) => x.json())) as { id: string }[];
    expect(rql.map((t) => t.id)).toEqual([TENANT]);
    const malformed = await c.request("/aps/2/types?id=%E0%A4%A");
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { message: string }).message).toMatch(/malformed %-escape/);
    const bad = await c.request("/aps/2/types?size=1");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/id or name/);
  });
});
