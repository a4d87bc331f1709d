/**
 * Issue 16 items 2 and 8: the controller calls of roluch/fallball-connector and the Connect extension
 * (docs/platform-forms.md §1.2, §1.3), with their paths exactly as written:
 * - FallBall `connector/v1/resources/__init__.py:101-106`: `GET aps/2/resources?implementing(<percent-encoded id>/1)`
 *   for a type declared `/1.0`; it reads `[0].aps.id`;
 * - FallBall `:157-163`, Connect `oaclient:122-134`: `PUT aps/2/resources` with the target in `aps.id`;
 * - Connect `fulfillment_models.py:451-458`: `/aps/2/resources/?implementing(.../pa/account/1.2),eq(id,1)`.
 * Both clients accept only 200 (`resources/__init__.py:193-213`, `oaclient:208-235`).
 * They authenticate with OAuth 1 (item 6, not here): an admin APS-Token stands in until it arrives.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases } from "../e2e/controller-harness.ts";
import { startInProcessController, type InProcessController } from "../fuzz/in-process-controller.ts";

const NOTE = "http://notes.example/types/note/1.0";
const ACCOUNT = "http://interop.example/types/pa/account/1.2";
const JSON_TYPE = { "content-type": "application/json" };

describe.each(databases)("FallBall and Connect forms on %s", (kind) => {
  let c: InProcessController;
  let note: string;

  beforeAll(async () => {
    c = await startInProcessController(kind, ["test/fixtures/controller/notes", "test/fixtures/interop"]);
    const r = await c.request("/aps/2/resources", {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ aps: { type: NOTE }, title: "n", size: 1 }),
    });
    expect(r.status).toBe(201);
    note = ((await r.json()) as { aps: { id: string } }).aps.id;
    for (const [id, companyName] of [
      [1, "provider"],
      [2, "customer"],
    ] as const) {
      const a = await c.request("/aps/2/resources/", {
        method: "POST",
        headers: JSON_TYPE,
        body: JSON.stringify({ aps: { type: ACCOUNT }, id, companyName }),
      });
      expect(a.status, await a.clone().text()).toBe(201);
    }
  }, 60_000);
  afterAll(async () => c?.dispose());

  it("implementing(<id>/1), percent-encoded, finds the type declared /1.0; /1.1 and /2 do not", async () => {
    const r = await c.request(
      `/aps/2/resources?implementing(${encodeURIComponent("http://notes.example/types/note/1")})`,
    );
    expect(r.status).toBe(200);
    expect(((await r.json()) as { aps: { id: string } }[])[0]?.aps.id).toBe(note);
    for (const other of [
      "http://notes.example/types/note/1.1",
      "http://notes.example/types/note/2",
      "http://notes.example/types/note",
    ]) {
      const none = await c.request(`/aps/2/resources?implementing(${encodeURIComponent(other)})`);
      expect(await none.json(), other).toEqual([]);
    }
  });

  it("PUT /aps/2/resources configures the resource its aps.id names; without one it is a 400", async () => {
    const r = await c.request("/aps/2/resources", {
      method: "PUT",
      headers: JSON_TYPE,
      body: JSON.stringify({ aps: { id: note }, body: "by aps.id" }),
    });
    expect(r.status, await r.clone().text()).toBe(200);
    expect(((await c.request(`/aps/2/resources/${note}`).then((x) => x.json())) as { body: string }).body).toBe(
      "by aps.id",
    );
    const missing = await c.request("/aps/2/resources/", {
      method: "PUT",
      headers: JSON_TYPE,
      body: JSON.stringify({ body: "x" }),
    });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { message: string }).message).toMatch(/aps\.id/);
    const unknown = await c.request("/aps/2/resources", {
      method: "PUT",
      headers: JSON_TYPE,
      body: JSON.stringify({ aps: { id: "00000000-0000-0000-0000-000000000000" }, body: "x" }),
    });
    expect(unknown.status).toBe(404);
  });

  it("eq(<relation>.aps.id,<id>) filters on a link's target, with select() showing it (Connect mylist.js:22-31, vat.py:142-149)", async () => {
    const topic = await c.request("/aps/2/resources", {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ aps: { type: "http://notes.example/types/topic/1.0" }, name: "t" }),
    });
    expect(topic.status).toBe(201);
    const topicId = ((await topic.json()) as { aps: { id: string } }).aps.id;
    const linked = await c.request("/aps/2/resources", {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ aps: { type: NOTE }, title: "linked", topic: { aps: { id: topicId } } }),
    });
    expect(linked.status, await linked.clone().text()).toBe(201);
    const linkedId = ((await linked.json()) as { aps: { id: string } }).aps.id;
    const r = await c.request(
      `/aps/2/resources?implementing(${encodeURIComponent(NOTE)}),select(topic),eq(topic.aps.id,${topicId})`,
    );
    expect(r.status, await r.clone().text()).toBe(200);
    const items = (await r.json()) as { aps: { id: string }; topic?: { aps: { id: string } } }[];
    expect(items.map((n) => n.aps.id)).toEqual([linkedId]);
    expect(items[0]!.topic?.aps.id).toBe(topicId);
    // A relation listing with a trailing slash (SpamExperts' store target `/aps/2/resources/{id}/domains`, written with "/" by dojo).
    const link = await c.request(`/aps/2/resources/${topicId}/notes/`, {
      method: "POST",
      headers: JSON_TYPE,
      body: JSON.stringify({ aps: { id: linkedId } }),
    });
    expect(link.status, await link.clone().text()).toBe(200);
    const listing = await c.request(`/aps/2/resources/${topicId}/notes/`);
    expect(listing.status, await listing.clone().text()).toBe(200);
    expect(((await listing.json()) as { aps: { id: string } }[]).map((n) => n.aps.id)).toEqual([linkedId]);
    // Not an id, or an id nothing links to: no match (and no database error).
    for (const value of ["nope", "00000000-0000-0000-0000-000000000000"]) {
      const none = await c.request(
        `/aps/2/resources?implementing(${encodeURIComponent(NOTE)}),eq(topic.aps.id,${value})`,
      );
      expect(none.status).toBe(200);
      expect(await none.json()).toEqual([]);
    }
    // ne/not keep their meaning over it.
    const others = await c.request(
      `/aps/2/resources?implementing(${encodeURIComponent(NOTE)}),not(eq(topic.aps.id,${topicId}))`,
    );
    const notEqual = await c.request(
      `/aps/2/resources?implementing(${encodeURIComponent(NOTE)}),ne(topic.aps.id,${topicId})`,
    );
    expect(((await notEqual.json()) as { aps: { id: string } }[]).map((n) => n.aps.id)).toEqual([note]);
    expect(((await others.json()) as { aps: { id: string } }[]).map((n) => n.aps.id)).toEqual([note]);
  });

  it("eq(id,1) filters on a property named id, not on aps.id", async () => {
    const r = await c.request(`/aps/2/resources/?implementing(${encodeURIComponent(ACCOUNT)}),eq(id,1)`);
    expect(r.status, await r.clone().text()).toBe(200);
    expect(((await r.json()) as { companyName: string }[]).map((a) => a.companyName)).toEqual(["provider"]);
  });
});
