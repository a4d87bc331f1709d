import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

const NOTE = "http://notes.example/types/note/1.0";
const TOPIC = "http://notes.example/types/topic/1.0";
const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";

describe.each(databases)("relations and links on %s", (kind) => {
  let t: BehaviourController;
  let customer = "";
  let other = "";
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startBehaviourController(kind, ["test/fixtures/controller/notes"]);
    const mint = new TokenService(loadKeys(t.dataDir).token);
    for (const [name, set] of [
      ["customer", (v: string) => (customer = v)],
      ["other", (v: string) => (other = v)],
    ] as const) {
      const a = await t.call("POST", "/aps/2/resources", {
        token: t.adminToken,
        body: { aps: { type: ACCOUNT }, companyName: name, addressPostal: {} },
      });
      set(await mint.mint({ accountId: a.json.aps.id }));
    }
    const make = async (token: string, body: object) =>
      (await t.call("POST", "/aps/2/resources", { token, body })).json.aps.id as string;
    ids.t1 = await make(customer, { aps: { type: TOPIC }, name: "one" });
    ids.t2 = await make(customer, { aps: { type: TOPIC }, name: "two" });
    ids.note = await make(customer, { aps: { type: NOTE }, title: "n" });
    ids.foreign = await make(other, { aps: { type: TOPIC }, name: "theirs" });
  }, 60_000);
  afterAll(async () => t?.dispose());

  const call = (method: string, path: string, body?: unknown, token = customer) =>
    t.call(method, path, { token, ...(body === undefined ? {} : { body }) });

  it("links, relinks a singular relation, and shows the link in the resource", async () => {
    const linked = await call("POST", `/aps/2/resources/${ids.note}/topic`, { aps: { id: ids.t1 } });
    expect(linked.status, linked.text).toBe(200);
    expect(linked.json).toEqual({ aps: { link: "weak", id: ids.t1, href: `/aps/2/resources/${ids.t1}` } });
    expect((await call("GET", `/aps/2/resources/${ids.note}`)).json.topic).toMatchObject({
      aps: { link: "weak", id: ids.t1 },
    });
    expect((await call("POST", `/aps/2/resources/${ids.note}/topic`, { aps: { id: ids.t2 } })).status).toBe(200);
    const related = await call("GET", `/aps/2/resources/${ids.note}/topic`);
    expect(related.json.map((r: { name: string }) => r.name)).toEqual(["two"]);
    expect(related.headers["content-range"]).toBe("items 0-0/1");
  });

  it("links into a collection idempotently, lists it, and unlinks", async () => {
    for (let i = 0; i < 2; i++)
      expect((await call("POST", `/aps/2/resources/${ids.t1}/notes`, { aps: { id: ids.note } })).status).toBe(200);
    expect((await call("GET", `/aps/2/resources/${ids.t1}/notes`)).json.map((r: { title: string }) => r.title)).toEqual(
      ["n"],
    );
    expect((await call("GET", `/aps/2/resources/${ids.t1}`)).json.notes).toEqual({
      aps: { link: "collection", href: `/aps/2/resources/${ids.t1}/notes` },
    });
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
    expect((await call("POST", `/aps/2/resources/${ids.note}/topic`, { aps: { id: ids.note } })).json.message).toMatch(
      /links to http:\/\/notes\.example\/types\/topic\/1\.0/,
    );
    expect((await call("POST", `/aps/2/resources/${ids.note}/topic`, { id: ids.t1 })).status).toBe(400);
    expect((await call("POST", `/aps/2/resources/${ids.note}/topic`, { aps: { id: ids.t1 } }, other)).status).toBe(404);
    expect((await call("GET", `/aps/2/resources/${ids.note}/topic`)).json.map((r: { name: string }) => r.name)).toEqual(
      ["two"],
    );
    expect((await call("PATCH", `/aps/2/resources/${ids.note}/topic`)).status).toBe(405);
  });

  it("provisions a new resource through a relation: linked both ways", async () => {
    const r = await call("POST", `/aps/2/resources/${ids.t1}/notes`, { aps: { type: NOTE }, title: "via topic" });
    expect(r.status, r.text).toBe(201);
    expect(r.json.topic).toMatchObject({ aps: { link: "weak", id: ids.t1 } });
    expect(
      (await call("GET", `/aps/2/resources/${ids.t1}/notes`)).json.map((n: { title: string }) => n.title),
    ).toContain("via topic");
    expect((await call("POST", `/aps/2/resources/${ids.t1}/notes`, { aps: { type: TOPIC }, name: "x" })).status).toBe(
      400,
    );
    expect((await call("POST", `/aps/2/resources/${ids.t1}/notes`, { aps: { type: NOTE } })).status).toBe(400);
  });

  it("makes the owner of a linked resource its referrer, for as long as the link lasts", async () => {
    const shared = await call("PUT", `/aps/2/resources/${ids.note}`, { shared: "for referrers", title: "n" });
    expect(shared.status, shared.text).toBe(200);
    // Before: the other account cannot see the note at all.
    expect((await call("GET", `/aps/2/resources/${ids.note}`, undefined, other)).status).toBe(404);
    expect((await call("GET", `/aps/2/resources?linkedWith(${ids.foreign})`, undefined, other)).json).toEqual([]);
    // The provider links the other account's topic to the note: that account now refers to it.
    expect(
      (await call("POST", `/aps/2/resources/${ids.foreign}/notes`, { aps: { id: ids.note } }, t.adminToken)).status,
    ).toBe(200);
    const seen = await call("GET", `/aps/2/resources/${ids.note}`, undefined, other);
    expect(seen.status, seen.text).toBe(200);
    expect(seen.json.shared).toBe("for referrers");
    expect(seen.json).not.toHaveProperty("adminNote");
    // Referrers may not configure by default (core access: admin/owner only).
    expect((await call("PUT", `/aps/2/resources/${ids.note}`, { title: "mine now" }, other)).status).toBe(403);
    const listed = await call("GET", `/aps/2/resources?linkedWith(${ids.foreign}),select(shared)`, undefined, other);
    expect(listed.json.map((r: { aps: { id: string } }) => r.aps.id)).toEqual([ids.note]);
    // Unlinked: the role goes with the link.
    expect(
      (await call("DELETE", `/aps/2/resources/${ids.foreign}/notes/${ids.note}`, undefined, t.adminToken)).status,
    ).toBe(204);
    expect((await call("GET", `/aps/2/resources/${ids.note}`, undefined, other)).status).toBe(404);
    expect((await call("GET", `/aps/2/resources?linkedWith(${ids.foreign})`, undefined, other)).json).toEqual([]);
  });

  it("lists links only when select names the relation, and filters with linkedWith", async () => {
    expect((await call("POST", `/aps/2/resources/${ids.note}/topic`, { aps: { id: ids.t1 } })).status).toBe(200);
    const plain = (await call("GET", `/aps/2/resources?eq(aps.id,${ids.note})`)).json;
    expect(plain[0]).not.toHaveProperty("topic");
    const selected = (await call("GET", `/aps/2/resources?eq(aps.id,${ids.note}),select(topic)`)).json;
    expect(selected[0].topic).toMatchObject({ aps: { link: "weak", id: ids.t1 } });
    const linked = (await call("GET", `/aps/2/resources?linkedWith(${ids.t1})`)).json.map(
      (r: { aps: { id: string } }) => r.aps.id,
    );
    expect(linked).toContain(ids.note);
    expect((await call("GET", `/aps/2/resources?linkedWith(not-an-id)`)).json).toEqual([]);
  });
});
