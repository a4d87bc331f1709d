/**
 * Issue 16 item 2: the requests a dojo `JsonRest` store (the base of `aps/ResourceStore`) and the
 * PHP-runtime UIs send, with their paths exactly as written (docs/platform-forms.md §1.6, §1.7):
 * - isitup `ui/js/domains.js:30-41`: `target: "/aps/2/resources/"` (trailing slash);
 * - dojo `store/JsonRest.js:171-218`: `query()` sends `Range: items=S-E` and `X-Range`, reads the total
 *   from `Content-Range` (`:219-226`); `get/put/remove` use `target + id` (`:65-79`);
 * - Connect `fulfillment_models.py:435`, `product_lifecycle.py:687`: `GET|POST /aps/2/resources/`.
 * The UI would authenticate with the user's session token; an admin APS-Token stands in for it.
 * In process (no socket is needed), on PGlite and, when DATABASE_URL is set, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases } from "../e2e/controller-harness.ts";
import { startInProcessController, type InProcessController } from "../fuzz/in-process-controller.ts";

const NOTE = "http://notes.example/types/note/1.0";
const JSON_TYPE = { "content-type": "application/json" };

describe.each(databases)("dojo store forms on %s", (kind) => {
  let c: InProcessController;
  const ids: string[] = [];

  beforeAll(async () => {
    c = await startInProcessController(kind, ["test/fixtures/controller/notes"]);
    for (const [i, title] of ["a", "b", "c", "d", "e"].entries()) {
      // dojo put() of an object without identity: POST to the target, which ends with "/".
      const r = await c.request("/aps/2/resources/", {
        method: "POST",
        headers: JSON_TYPE,
        body: JSON.stringify({ aps: { type: NOTE }, title, size: i }),
      });
      expect(r.status, await r.clone().text()).toBe(201);
      ids.push(((await r.json()) as { aps: { id: string } }).aps.id);
    }
  }, 60_000);
  afterAll(async () => c?.dispose());

  const query = `implementing(${encodeURIComponent(NOTE)}),sort(+size)`;

  it("lists at the target with a trailing slash, all matches answered 200 with Content-Range", async () => {
    const r = await c.request(`/aps/2/resources/?${query}`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-range")).toBe("items 0-4/5");
    expect(((await r.json()) as { title: string }[]).map((n) => n.title)).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("honours Range: items=S-E as a page, answered 200 (not 206) with the total in Content-Range", async () => {
    const r = await c.request(`/aps/2/resources/?${query}`, {
      headers: { Range: "items=1-2", "X-Range": "items=1-2" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-range")).toBe("items 1-2/5");
    expect(((await r.json()) as { title: string }[]).map((n) => n.title)).toEqual(["b", "c"]);
    // An open end (count Infinity in dojo) is the rest, up to a page.
    const rest = await c.request(`/aps/2/resources?${query}`, { headers: { Range: "items=3-" } });
    expect(rest.headers.get("content-range")).toBe("items 3-4/5");
    // limit() in the query wins over the header (docs/aps/rql.md section 6).
    const limited = await c.request(`/aps/2/resources?${query},limit(0,1)`, { headers: { Range: "items=1-2" } });
    expect(((await limited.json()) as { title: string }[]).map((n) => n.title)).toEqual(["a"]);
    // A malformed header is ignored, not an error.
    const ignored = await c.request(`/aps/2/resources?${query}`, { headers: { Range: "bytes=0-1" } });
    expect(ignored.headers.get("content-range")).toBe("items 0-4/5");
  });

  it("reads, writes and removes at target + id with a trailing slash on the item", async () => {
    const id = ids[0]!;
    const got = await c.request(`/aps/2/resources/${id}/`);
    expect(got.status).toBe(200);
    expect(((await got.json()) as { title: string }).title).toBe("a");
    const put = await c.request(`/aps/2/resources/${id}/`, {
      method: "PUT",
      headers: JSON_TYPE,
      body: JSON.stringify({ body: "changed" }),
    });
    expect(put.status, await put.clone().text()).toBe(200);
    expect(((await put.json()) as { body: string }).body).toBe("changed");
    const removed = await c.request(`/aps/2/resources/${ids[4]}/`, { method: "DELETE" });
    expect(removed.status).toBe(204);
    expect((await c.request(`/aps/2/resources/${ids[4]}`)).status).toBe(404);
    ids.pop();
  });
});
