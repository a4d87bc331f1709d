/**
 * Unlinking from either end of one relation (runtime/controller/relations/relation-service.ts):
 * `DELETE /aps/2/resources/{a}/{relation}/{b}` removes the link between a and b whichever end
 * stored it, or refuses with a 409 that names the required relation, changing nothing. Never a
 * 204 that leaves the link in place. Every shape of test/fixtures/controller/link-shapes:
 * required and optional singular relations against a collection, a collection against a
 * collection, a singular against a singular, and a required collection, each unlinked from both
 * ends and linked from both ends. In process, on PGlite and, with DATABASE_URL, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

const T = (name: string) => `http://links.example/types/${name}/1.0`;
const ref = (id: string) => ({ aps: { id } });

describe.each(databases)("unlinking from either end on %s", (kind) => {
  let c: BehaviourController;
  const call = async (method: string, path: string, body?: unknown) => {
    const r = await c.request(path, {
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: r.status, text: await r.text() };
  };
  const make = async (type: string, extra: Record<string, unknown> = {}) => {
    const r = await call("POST", "/aps/2/resources", { aps: { type: T(type) }, name: type, ...extra });
    expect(r.status, r.text).toBe(201);
    return JSON.parse(r.text).aps.id as string;
  };
  const link = async (from: string, relation: string, to: string) => {
    const r = await call("POST", `/aps/2/resources/${from}/${relation}`, ref(to));
    expect(r.status, r.text).toBe(200);
  };
  const unlink = (from: string, relation: string, to: string) =>
    call("DELETE", `/aps/2/resources/${from}/${relation}/${to}`);
  /** Whether a and b are linked, as each end's aps/links tells it: both ends must agree. */
  const linked = async (a: string, b: string) => {
    const seen = async (x: string, y: string) =>
      (JSON.parse((await call("GET", `/aps/2/resources/${x}/aps/links`)).text) as { id: string }[]).some(
        (l) => l.id === y,
      );
    const [ab, ba] = [await seen(a, b), await seen(b, a)];
    expect(ab, `${a} and ${b} disagree on their link`).toBe(ba);
    return ab;
  };

  beforeAll(async () => {
    c = await startBehaviourController(kind, ["test/fixtures/controller/link-shapes"]);
  }, 60_000);
  afterAll(async () => c?.dispose());

  describe("a required singular relation (Bound.hub) against a collection (Hub.bound)", () => {
    it.each([
      ["from the singular end", (hub: string, b: string) => unlink(b, "hub", hub)],
      ["from the collection end", (hub: string, b: string) => unlink(hub, "bound", b)],
    ])("is refused %s with a 409 naming the relation, and the link stays", async (_, remove) => {
      const hub = await make("hub");
      const b = await make("bound", { hub: ref(hub) });
      const r = await remove(hub, b);
      expect(r.status, r.text).toBe(409);
      expect(JSON.parse(r.text).message).toContain('required relation "hub"');
      expect(await linked(hub, b)).toBe(true);
      expect(
        JSON.parse((await call("GET", `/aps/2/resources/${hub}/bound`)).text).map(
          (x: { aps: { id: string } }) => x.aps.id,
        ),
      ).toEqual([b]);
    });

    it("refuses it from the collection end also when the collection stored the link too, and removes neither row", async () => {
      const hub = await make("hub");
      const b = await make("bound", { hub: ref(hub) });
      // Linked again from the hub's side: one link, nothing new stored.
      await link(hub, "bound", b);
      expect((await unlink(hub, "bound", b)).status).toBe(409);
      expect(await linked(hub, b)).toBe(true);
    });

    it("lets a second hub's collection link go: the required link is to the first hub and stays", async () => {
      const home = await make("hub");
      const visited = await make("hub");
      const b = await make("bound", { hub: ref(home) });
      await link(visited, "bound", b);
      const r = await unlink(visited, "bound", b);
      expect(r.status, r.text).toBe(204);
      expect(await linked(visited, b)).toBe(false);
      expect(await linked(home, b)).toBe(true);
    });
  });

  describe("an optional singular relation (Loose.hub) against a collection (Hub.loose)", () => {
    const cases = [
      ["linked at provisioning, unlinked from the singular end", "provision", "singular"],
      ["linked at provisioning, unlinked from the collection end", "provision", "collection"],
      ["linked from the collection end, unlinked from the singular end", "collection", "singular"],
      ["linked from the collection end, unlinked from the collection end", "collection", "collection"],
    ] as const;
    it.each(cases)("goes when %s", async (_, how, end) => {
      const hub = await make("hub");
      const l = how === "provision" ? await make("loose", { hub: ref(hub) }) : await make("loose");
      if (how === "collection") await link(hub, "loose", l);
      expect(await linked(hub, l)).toBe(true);
      const r = end === "singular" ? await unlink(l, "hub", hub) : await unlink(hub, "loose", l);
      expect(r.status, r.text).toBe(204);
      expect(await linked(hub, l)).toBe(false);
      expect(JSON.parse((await call("GET", `/aps/2/resources/${hub}/loose`)).text)).toEqual([]);
      expect(JSON.parse((await call("GET", `/aps/2/resources/${l}`)).text).hub).toBeUndefined();
      // Gone is gone: a second unlink from either end finds nothing.
      expect((await unlink(l, "hub", hub)).status).toBe(404);
      expect((await unlink(hub, "loose", l)).status).toBe(404);
    });
  });

  describe("a collection (Peer.hubs) against a collection (Hub.peers)", () => {
    it.each([
      ["linked from the peer, unlinked from the hub", "peer", "hub"],
      ["linked from the hub, unlinked from the peer", "hub", "peer"],
      ["linked from both, unlinked from the hub", "both", "hub"],
    ] as const)("goes when %s", async (_, from, end) => {
      const hub = await make("hub");
      const p = await make("peer");
      if (from !== "hub") await link(p, "hubs", hub);
      if (from !== "peer") await link(hub, "peers", p);
      const r = end === "hub" ? await unlink(hub, "peers", p) : await unlink(p, "hubs", hub);
      expect(r.status, r.text).toBe(204);
      expect(await linked(hub, p)).toBe(false);
      expect(JSON.parse((await call("GET", `/aps/2/resources/${hub}/peers`)).text)).toEqual([]);
      expect(JSON.parse((await call("GET", `/aps/2/resources/${p}/hubs`)).text)).toEqual([]);
    });
  });

  describe("a singular relation (Partner.hub) against a singular relation (Hub.partner)", () => {
    it.each([
      ["linked from the partner, unlinked from the hub", "partner", "hub"],
      ["linked from the hub, unlinked from the partner", "hub", "partner"],
    ] as const)("goes when %s", async (_, from, end) => {
      const hub = await make("hub");
      const p = await make("partner");
      if (from === "partner") await link(p, "hub", hub);
      else await link(hub, "partner", p);
      const r = end === "hub" ? await unlink(hub, "partner", p) : await unlink(p, "hub", hub);
      expect(r.status, r.text).toBe(204);
      expect(await linked(hub, p)).toBe(false);
    });
  });

  describe("a required collection (Anchor.hubs) against a singular relation (Hub.anchor)", () => {
    it.each([
      ["from the collection end", (a: string, hub: string) => unlink(a, "hubs", hub)],
      ["from the singular end", (a: string, hub: string) => unlink(hub, "anchor", a)],
    ])("refuses to take its last member %s, and lets a member go while another stays", async (_, remove) => {
      const first = await make("hub");
      const a = await make("anchor", { hubs: [ref(first)] });
      const last = await remove(a, first);
      expect(last.status, last.text).toBe(409);
      expect(JSON.parse(last.text).message).toContain('required collection "hubs"');
      expect(await linked(a, first)).toBe(true);
      const second = await make("hub");
      await link(second, "anchor", a);
      const r = await remove(a, first);
      expect(r.status, r.text).toBe(204);
      expect(await linked(a, first)).toBe(false);
      expect(await linked(a, second)).toBe(true);
      expect((await remove(a, second)).status).toBe(409);
    });
  });

  it("answers 404 for a link that does not exist and for a resource that is not linked at all", async () => {
    const hub = await make("hub");
    const l = await make("loose");
    expect((await unlink(hub, "loose", l)).status).toBe(404);
    expect((await unlink(l, "hub", hub)).status).toBe(404);
    expect((await unlink(hub, "loose", "00000000-0000-4000-8000-000000000000")).status).toBe(404);
  });
});
