import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { likeLiteral, likePrefix } from "../../runtime/controller/store/like-pattern.ts";

/** The patterns as PostgreSQL's own `like` reads them (PGlite is PostgreSQL compiled to WebAssembly). */
describe("like patterns", () => {
  let db: PGlite;
  beforeAll(async () => {
    db = await PGlite.create();
  });
  afterAll(() => db.close());
  const like = async (text: string, pattern: string) =>
    (await db.query<{ m: boolean }>("select $1::text like $2::text as m", [text, pattern])).rows[0]!.m;

  it("match the wildcard and escape characters of the text literally", async () => {
    expect(likeLiteral("50%_off\\now")).toBe("50\\%\\_off\\\\now");
    expect(await like("50%_off\\now", likeLiteral("50%_off\\now"))).toBe(true);
    expect(await like("a_b", likeLiteral("a_b"))).toBe(true);
    expect(await like("axb", likeLiteral("a_b"))).toBe(false);
    expect(await like("abc", likeLiteral("a%"))).toBe(false);
  });

  it("a prefix matches what starts with it, and nothing a wildcard in it would have let through", async () => {
    expect(await like("/p_1/c/", likePrefix("/p_1/"))).toBe(true);
    expect(await like("/p_1/", likePrefix("/p_1/"))).toBe(true);
    expect(await like("/pX1/c/", likePrefix("/p_1/"))).toBe(false);
    expect(await like("/pa/", likePrefix("/p%/"))).toBe(false);
    expect(await like("/a\\b/", likePrefix("/a\\b/"))).toBe(true);
  });

  it("without the escape, the same prefix would match another account (so the checks above can fail)", async () => {
    expect(await like("/pX1/c/", "/p_1/%")).toBe(true);
  });
});
