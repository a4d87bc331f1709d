import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/data-directory.ts";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "./controller-harness.ts";

const NOTE = "http://notes.example/types/note/1.0";
const TOPIC = "http://notes.example/types/topic/1.0";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";

describe.each(databases)("relations and links on %s", (kind) => {
  let t: ControllerUnderTest;
  let customer = "";
  let other = "";
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["test/fixtures/controller/notes"]);
    const mint = new TokenService(loadKeys(t.dataDir).token);
    for (const [name, set] of [["customer", (v: string) => (customer = v)], ["other", (v: string) => (other = v)]] as const) {
      const a = await t.call("POST", "/aps/2/resources", { token: t.adminToken, body: { aps: { type: ACCOUNT }, companyName: name, addressPostal: {} } });
      set(await mint.mint({ accountId: a.json.aps.id }));
    }
    const make = async (token: string, body: object) => (await t.call("POST", "/aps/2/resources", { token, body })).json.aps.id as string;
    ids.t1 = await make(customer, { aps: { type: TOPIC }, name: "one" });
    ids.t2 = await make(customer, { aps: { type: TOPIC }, name: "two" });
    ids.note = await make(customer, { aps: { type: NOTE }, title: "n" });
    ids.foreign = await make(other, { aps: { type: TOPIC }, name: "theirs" });
  }, 60_000);
  afterAll(async () => t?.dispose());

  const call = (method: string, path: string, body?: unknown, token = customer) => t.call(method, path, { token, ...(body === undefined ? {} : { body }) });

  it("links, relinks a singular relation, and shows the link in the resource", async () => {
    const linked = await call("POST", `/aps/2/resources/${ids.note}/topic`, { aps: { id: ids.t1 } });
    expect(linked.status, linked.text).toBe(200);
    expect(linked.json).toEqual({ aps: { link: "weak", id: ids.t1, href: `/aps/2/resources/${ids.t1}` } });
    expect((await call("GET", `/aps/2/resources/${ids.note}`)).json.topic).toMatchObject({ aps: { link: "weak", id: ids.t1 } });
    expect((await call("POST", `/aps/2/resources/${ids.note}/topic`, { aps: { id: ids.t2 } })).status).toBe(200);
    const related = await call("GET", `/aps/2/resources/${ids.note}/topic`);
    expect(related.json.map((r: { name: string }) => r.name)).toEqual(["two"]);
    expect(related.headers["content-range"]).toBe("items 0-0/1");
  });

  it("links into a collection idempotently, lists it, and unlinks", async () => {
    for (let i = 0; i < 2; i++) expect((await call("POST", `/aps/2/resources/${ids.t1}/notes`, { aps: { id: ids.note } })).status).toBe(200);
    expect((await call("GET", `/aps/2/resources/${ids.t1}/notes`)).json.map((r: { title: string }) => r.title)).toEqual(["n"]);
    expect((await call("GET", `/aps/2/resources/${ids.t1}`)).json.notes).toEqual({ aps: { link: "collection", href: `/aps/2/resources/${ids.t1}/notes` } });
    const links = (await call("GET", `/aps/2/resources/${ids.note}/aps/links`)).json;
    expect(links).toEqual(
      expect.arrayContaining([
        { relation: "topic", kind: "weak", direction: "out", id: ids.t2, href: `/aps/2/resources/${ids.t2}` },
        { relation: "notes", kind: "weak", direction: "in", id: ids.t1, href: `/aps/2/resources/${ids.t1}` },
      ]),
    );
    expect((await call("DELETE", `/aps/2/resources/${ids.t1}/notes/${ids.note}`)).status).toBe(204);
    expect((await call("GET", `/aps/2/resources/${ids.t1}/notes`)).json).toEqual([]);
    expect((await call("DELETE", `/aps/2/resources/${ids.t1}/notes/${ids.note}`)).status).toBe(404);
  });

  it("refuses links to what the caller cannot see, of the wrong type, or without an id, and changes nothing", async () => {
    expect((await call("POST", `/aps/2/resources/${ids.note}/topic`, { aps: { id: ids.foreign } })).status).toBe(400);
    expect((await call("POST", `/aps/2/resources/${ids.note}/topic`, { aps: { id: ids.note } })).json.message).toMatch(/links to http:\/\/notes\.example\/types\/topic\/1\.0/);
    expect((await call("POST", `/aps/2/resources/${ids.note}/topic`, { id: ids.t1 })).status).toBe(400);
    expect((await call("POST", `/aps/2/resources/${ids.note}/topic`, { aps: { id: ids.t1 } }, other)).status).toBe(404);
    expect((await call("GET", `/aps/2/resources/${ids.note}/topic`)).json.map((r: { name: string }) => r.name)).toEqual(["two"]);
    expect((await call("PATCH", `/aps/2/resources/${ids.note}/topic`)).status).toBe(405);
  });

  it("provisions a new resource through a relation: linked both ways", async () => {
    const r = await call("POST", `/aps/2/resources/${ids.t1}/notes`, { aps: { type: NOTE }, title: "via topic" });
    expect(r.status, r.text).toBe(201);
    expect(r.json.topic).toMatchObject({ aps: { link: "weak", id: ids.t1 } });
    expect((await call("GET", `/aps/2/resources/${ids.t1}/notes`)).json.map((n: { title: string }) => n.title)).toContain("via topic");
    expect((await call("POST", `/aps/2/resources/${ids.t1}/notes`, { aps: { type: TOPIC }, name: "x" })).status).toBe(400);
    expect((await call("POST", `/aps/2/resources/${ids.t1}/notes`, { aps: { type: NOTE } })).status).toBe(400);
  });
});
