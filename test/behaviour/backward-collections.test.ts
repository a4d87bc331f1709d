/**
 * Which collection shows a resource that links to another (runtime/controller/backward-relations.ts,
 * issue 16 item 9): of the target type's collections whose type the source implements, the most
 * specific one; with no single most specific one, none (the link stays an anonymous backward
 * relation, docs/aps/relations.md section 5, listed by aps/links). In process, on PGlite and, with DATABASE_URL, on
 * PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases, startBehaviourController, type BehaviourController } from "./harness.ts";

const SHELF = "http://shelves.example/types/shelf/1.0";
const CART = "http://shelves.example/types/cart/1.0";
const BOOK = "http://shelves.example/types/book/1.0";

describe.each(databases)("backward collections on %s", (kind) => {
  let c: BehaviourController;
  const json = async (method: string, path: string, body?: object) => {
    const r = await c.request(path, {
      method,
      headers: { "content-type": "application/json" },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect(r.status, path).toBeLessThan(300);
    return r.json() as Promise<any>; // reply shapes vary per call
  };

  beforeAll(async () => {
    c = await startBehaviourController(kind, ["test/fixtures/controller/shelves"]);
  }, 60_000);
  afterAll(async () => c?.dispose());

  it("lists a linking resource in the most specific collection only, and in none of two equally specific ones", async () => {
    const shelf = (await json("POST", "/aps/2/resources", { aps: { type: SHELF }, name: "s" })).aps.id;
    const book = (
      await json("POST", "/aps/2/resources", { aps: { type: BOOK }, title: "b", shelf: { aps: { id: shelf } } })
    ).aps.id;
    expect(
      (await json("GET", `/aps/2/resources/${shelf}/books`)).map((b: { aps: { id: string } }) => b.aps.id),
    ).toEqual([book]);
    expect(await json("GET", `/aps/2/resources/${shelf}/items`)).toEqual([]);
    // With two equally specific collections, in neither; aps/links still shows the link.
    const cart = (await json("POST", "/aps/2/resources", { aps: { type: CART }, name: "c" })).aps.id;
    const inCart = (
      await json("POST", "/aps/2/resources", { aps: { type: BOOK }, title: "c", cart: { aps: { id: cart } } })
    ).aps.id;
    expect(await json("GET", `/aps/2/resources/${cart}/borrowed`)).toEqual([]);
    expect(await json("GET", `/aps/2/resources/${cart}/reserved`)).toEqual([]);
    expect(await json("GET", `/aps/2/resources/${cart}/aps/links`)).toEqual([
      expect.objectContaining({ relation: "cart", direction: "in", id: inCart }),
    ]);
    // Linked through one of them, it is a member of that one.
    await json("POST", `/aps/2/resources/${cart}/reserved`, { aps: { id: inCart } });
    expect(
      (await json("GET", `/aps/2/resources/${cart}/reserved`)).map((b: { aps: { id: string } }) => b.aps.id),
    ).toEqual([inCart]);
  });
});
