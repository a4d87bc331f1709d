import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

const NOTE = "http://notes.example/types/note/1.0";
const TOPIC = "http://notes.example/types/topic/1.0";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
const CMAIL = "http://cloudmail.example.com/types/mailbox/1.0";

describe.each(databases)("controller resources on %s", (kind) => {
  let t: BehaviourController;
  let customer: string; // token of a customer account below the provider
  let customerId: string;
  let other: string; // token of a second customer

  beforeAll(async () => {
    t = await startBehaviourController(kind, ["test/fixtures/controller/notes", "types/examples/cloudmail"]);
    const tokens = new TokenService(loadKeys(t.dataDir).token);
    const made = await t.call("POST", "/aps/2/resources", {
      token: t.adminToken,
      body: { aps: { type: ACCOUNT }, companyName: "Customer", addressPostal: {} },
    });
    expect(made.status).toBe(201);
    customerId = made.json.aps.id;
    customer = await tokens.mint({ accountId: customerId });
    const made2 = await t.call("POST", "/aps/2/resources", {
      token: t.adminToken,
      body: { aps: { type: ACCOUNT }, companyName: "Other", addressPostal: {} },
    });
    other = await tokens.mint({ accountId: made2.json.aps.id });
  }, 60_000);
  afterAll(async () => t?.dispose());

  const note = (extra: Record<string, unknown> = {}) => ({ aps: { type: NOTE }, title: "hello", ...extra });

  it("provisions, retrieves, configures and unprovisions, with the aps section", async () => {
    const created = await t.call("POST", "/aps/2/resources", { token: customer, body: note({ size: 3 }) });
    expect(created.status).toBe(201);
    const { id } = created.json.aps;
    expect(created.json.aps).toMatchObject({
      type: NOTE,
      status: "aps:ready",
      revision: 1,
      schema: `/aps/2/types/${encodeURIComponent(NOTE)}`,
    });
    expect(created.json.aps.modified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const got = await t.call("GET", `/aps/2/resources/${id}`, { token: customer });
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({ title: "hello", size: 3 });

    const changed = await t.call("PUT", `/aps/2/resources/${id}`, {
      token: customer,
      body: { title: "changed", size: null },
    });
    expect(changed.status).toBe(200);
    expect(changed.json.aps.revision).toBe(2);
    expect(changed.json.title).toBe("changed");
    expect(changed.json).not.toHaveProperty("size");

    expect((await t.call("DELETE", `/aps/2/resources/${id}`, { token: customer })).status).toBe(204);
    const gone = await t.call("GET", `/aps/2/resources/${id}`, { token: customer });
    expect(gone.status).toBe(404);
    expect(gone.json).toMatchObject({ code: 404, type: "NotFound", error: "NotFound" });
  });

  it("keeps 64-bit integers exact through the database, both extremes", async () => {
    for (const text of ["9223372036854775807", "-9223372036854775808"]) {
      const created = await t.call("POST", "/aps/2/resources", {
        token: customer,
        rawBody: `{"aps": {"type": "${NOTE}"}, "title": "big", "size": ${text}}`,
      });
      expect(created.status).toBe(201);
      const got = await t.call("GET", `/aps/2/resources/${created.json.aps.id}`, { token: customer });
      expect(got.text).toContain(`"size":${text}`);
    }
    const over = await t.call("POST", "/aps/2/resources", {
      token: customer,
      rawBody: `{"aps": {"type": "${NOTE}"}, "title": "big", "size": 9223372036854775808}`,
    });
    expect(over.status).toBe(400);
    expect(over.json.details).toEqual([
      {
        path: "/size",
        code: "range",
        message: "9223372036854775808 is outside the signed 64-bit range (-9223372036854775808 to 9223372036854775807)",
      },
    ]);
  });

  it("answers bad input with the one error shape and writes nothing", async () => {
    const before = await t.call("GET", "/aps/2/resources?implementing(http://notes.example/types/note/1.0)", {
      token: t.adminToken,
    });
    const cases: [string, string, object, number, RegExp][] = [
      ["POST", "/aps/2/resources", { rawBody: "{not json" }, 400, /not valid JSON/],
      ["POST", "/aps/2/resources", { rawBody: "" }, 400, /empty/],
      ["POST", "/aps/2/resources", { rawBody: "[1]" }, 400, /JSON object/],
      ["POST", "/aps/2/resources", { body: { title: "x" } }, 400, /aps\.type/],
      [
        "POST",
        "/aps/2/resources",
        { body: { aps: { type: "http://nope/1.0" } } },
        400,
        /not a type this controller knows/,
      ],
      ["POST", "/aps/2/resources", { body: note({ title: 5, bogus: true }) }, 400, /not valid: 2 problems/],
      ["POST", "/aps/2/resources", { body: note({ stamp: "x" }) }, 400, /read-only/],
      ["POST", "/aps/2/resources", { body: { aps: { type: CMAIL } } }, 400, /not valid|required/],
      [
        "POST",
        "/aps/2/resources",
        { rawBody: "{}", headers: { "content-type": "text/plain" } },
        415,
        /application\/json/,
      ],
      ["GET", "/aps/2/resources/not-an-id", {}, 404, /does not exist/],
      ["GET", "/aps/2/resources/00000000-0000-0000-0000-000000000000", {}, 404, /does not exist/],
      ["PATCH", "/aps/2/resources/00000000-0000-0000-0000-000000000000", {}, 405, /PATCH is not an operation/],
      ["GET", "/aps/2/nothing", {}, 404, /Nothing is served/],
    ];
    for (const [method, path, options, status, message] of cases) {
      const r = await t.call(method, path, { token: customer, ...options });
      expect(r.status, `${method} ${path} ${JSON.stringify(options)}`).toBe(status);
      expect(r.json).toMatchObject({ code: status, type: expect.any(String), error: expect.any(String) });
      expect(r.json.message).toMatch(message);
      expect(r.text).not.toMatch(/at .*\.ts:\d+/);
    }
    const noToken = await t.call("GET", "/aps/2/resources");
    expect(noToken.status).toBe(401);
    const badToken = await t.call("GET", "/aps/2/resources", { token: `${customer}x` });
    expect(badToken.status).toBe(401);
    const after = await t.call("GET", "/aps/2/resources?implementing(http://notes.example/types/note/1.0)", {
      token: t.adminToken,
    });
    expect(after.headers["content-range"]).toBe(before.headers["content-range"]);
  });

  it("answers 502 for types of an application that has no instance, instead of pretending", async () => {
    const settings = { apiEndpoint: "https://api.example", apiKey: "key-0123456789abcdef" };
    const r = await t.call("POST", "/aps/2/resources", {
      token: customer,
      body: { aps: { type: "http://cloudmail.example.com/types/cloudmail/1.0" }, ...settings },
    });
    expect(r.status, r.text).toBe(502);
    expect(r.json.message).toMatch(/No instance of .* is installed/);
  });

  it("rejects a configure naming a stale revision with 409 and keeps the resource", async () => {
    const created = await t.call("POST", "/aps/2/resources", { token: customer, body: note() });
    const id = created.json.aps.id;
    expect(
      (await t.call("PUT", `/aps/2/resources/${id}`, { token: customer, body: { aps: { revision: 1 }, title: "one" } }))
        .status,
    ).toBe(200);
    const stale = await t.call("PUT", `/aps/2/resources/${id}`, {
      token: customer,
      body: { aps: { revision: 1 }, title: "two" },
    });
    expect(stale.status).toBe(409);
    expect((await t.call("GET", `/aps/2/resources/${id}`, { token: customer })).json.title).toBe("one");
  });

  it("enforces final and property access for users", async () => {
    const created = await t.call("POST", "/aps/2/resources", { token: customer, body: note({ region: "eu" }) });
    const id = created.json.aps.id;
    const r = await t.call("PUT", `/aps/2/resources/${id}`, { token: customer, body: { region: "us" } });
    expect(r.status).toBe(400);
    expect(r.json.details[0]).toMatchObject({ path: "/region", code: "final" });
    const denied = await t.call("POST", "/aps/2/resources", { token: customer, body: note({ adminNote: "x" }) });
    expect(denied.status).toBe(400);
    expect(denied.json.details[0]).toMatchObject({ path: "/adminNote", code: "access" });
    // The provider is admin of the customer's note: it may set adminNote, and the owner never sees it.
    expect(
      (await t.call("PUT", `/aps/2/resources/${id}`, { token: t.adminToken, body: { adminNote: "for admins" } }))
        .status,
    ).toBe(200);
    expect((await t.call("GET", `/aps/2/resources/${id}`, { token: t.adminToken })).json.adminNote).toBe("for admins");
    expect((await t.call("GET", `/aps/2/resources/${id}`, { token: customer })).json).not.toHaveProperty("adminNote");
    // Nor can the owner learn it through a filter or a sort: comparisons hold only where it may read.
    const ids = async (token: string, q: string) =>
      (await t.call("GET", `/aps/2/resources?${q}`, { token })).json.map((r: { aps: { id: string } }) => r.aps.id);
    expect(await ids(t.adminToken, "eq(adminNote,for%20admins)")).toEqual([id]);
    expect(await ids(customer, "eq(adminNote,for%20admins)")).toEqual([]);
    expect(await ids(customer, "like(adminNote,for*)")).toEqual([]);
    expect(await ids(customer, "ne(adminNote,for%20admins)")).toContain(id);
    expect(await ids(customer, "ne(adminNote,something%20else)")).toContain(id);
  });

  it("keeps encrypted properties sealed in the database, out of responses and out of logs", async () => {
    const secret = "s3cr3t-pin-4711";
    const created = await t.call("POST", "/aps/2/resources", { token: customer, body: note({ pin: secret }) });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain(secret);
    const id = created.json.aps.id;
    expect((await t.call("GET", `/aps/2/resources/${id}`, { token: customer })).text).not.toContain(secret);
    expect((await t.call("GET", `/aps/2/resources?eq(title,hello)`, { token: t.adminToken })).text).not.toContain(
      secret,
    );
    const rows = await t.sql(
      `select body::text as body, encode(secrets, 'hex') as secrets from resources where id = '${id}'`,
    );
    expect(rows).toHaveLength(1);
    expect(String(rows[0]!.body)).not.toContain(secret);
    expect(String(rows[0]!.secrets)).not.toContain(Buffer.from(secret).toString("hex"));
    expect(String(rows[0]!.secrets).length).toBeGreaterThan(56);
    expect(readFileSync(t.logFile, "utf8")).not.toContain(secret);
    // A configure that leaves the pin alone keeps it sealed and intact.
    expect((await t.call("PUT", `/aps/2/resources/${id}`, { token: customer, body: { title: "x" } })).status).toBe(200);
    const again = await t.sql(`select secrets from resources where id = '${id}'`);
    expect(again[0]!.secrets).not.toBeNull();
  });

  it("shows each account only what it may see", async () => {
    const mine = await t.call("POST", "/aps/2/resources", { token: customer, body: note({ title: "mine" }) });
    const theirs = await t.call("POST", "/aps/2/resources", { token: other, body: note({ title: "theirs" }) });
    expect((await t.call("GET", `/aps/2/resources/${theirs.json.aps.id}`, { token: customer })).status).toBe(404);
    expect(
      (await t.call("PUT", `/aps/2/resources/${theirs.json.aps.id}`, { token: customer, body: { title: "x" } })).status,
    ).toBe(404);
    expect((await t.call("DELETE", `/aps/2/resources/${theirs.json.aps.id}`, { token: customer })).status).toBe(404);
    const list = await t.call("GET", "/aps/2/resources?implementing(http://notes.example/types/note/1.0)", {
      token: customer,
    });
    const titles = list.json.map((r: { title: string }) => r.title);
    expect(titles).toContain("mine");
    expect(titles).not.toContain("theirs");
    const all = await t.call("GET", `/aps/2/resources?implementing(${encodeURIComponent(NOTE)})`, {
      token: t.adminToken,
    });
    expect(all.json.map((r: { aps: { id: string } }) => r.aps.id)).toEqual(
      expect.arrayContaining([mine.json.aps.id, theirs.json.aps.id]),
    );
  });

  it("links on provision, shows the link, and refuses to unprovision a strongly linked target only when strong", async () => {
    const topic = await t.call("POST", "/aps/2/resources", {
      token: customer,
      body: { aps: { type: TOPIC }, name: "t" },
    });
    const linked = await t.call("POST", "/aps/2/resources", {
      token: customer,
      body: note({ topic: { aps: { id: topic.json.aps.id } } }),
    });
    expect(linked.status).toBe(201);
    expect(linked.json.topic).toEqual({
      aps: { link: "weak", id: topic.json.aps.id, href: `/aps/2/resources/${topic.json.aps.id}` },
    });
    const wrongType = await t.call("POST", "/aps/2/resources", {
      token: customer,
      body: note({ topic: { aps: { id: linked.json.aps.id } } }),
    });
    expect(wrongType.status).toBe(400);
    const notVisible = await t.call("POST", "/aps/2/resources", {
      token: other,
      body: note({ topic: { aps: { id: topic.json.aps.id } } }),
    });
    expect(notVisible.status).toBe(400);
    // A weak link does not hold its target.
    expect((await t.call("DELETE", `/aps/2/resources/${topic.json.aps.id}`, { token: customer })).status).toBe(204);
    expect(
      (await t.call("GET", `/aps/2/resources/${linked.json.aps.id}`, { token: customer })).json,
    ).not.toHaveProperty("topic");
  });

  it("keeps every resource across a restart", async () => {
    const created = await t.call("POST", "/aps/2/resources", {
      token: customer,
      body: note({ title: "durable", pin: "1234" }),
    });
    const before = await t.call("GET", "/aps/2/resources", { token: t.adminToken });
    await t.stop();
    await t.restart();
    const after = await t.call("GET", "/aps/2/resources", { token: t.adminToken });
    expect(after.headers["content-range"]).toBe(before.headers["content-range"]);
    expect(after.json).toEqual(before.json);
    expect((await t.call("GET", `/aps/2/resources/${created.json.aps.id}`, { token: customer })).json.title).toBe(
      "durable",
    );
  });
});
