import { describe, expect, it } from "vitest";
import {
  decidedByRead,
  resourceSubPath,
  type RelationQuestions,
} from "../../runtime/controller/routes/resource-sub-path.ts";
import { ControllerError } from "../../runtime/controller/support/errors.ts";

const MEMBER = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";

/** Relations: `users` is declared by the resource's type, `domains` only by another type. */
function questions(): RelationQuestions & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    isRelationName: (name) => name === "users" || name === "domains",
    declares: async (relation) => {
      reads.push(relation);
      return relation === "users";
    },
  };
}

describe("where a path below a resource goes", () => {
  it("enable and disable, on PUT only", async () => {
    expect(await resourceSubPath("PUT", "/enable", questions())).toEqual({ to: "suspension", disable: false });
    expect(await resourceSubPath("PUT", "/disable", questions())).toEqual({ to: "suspension", disable: true });
    expect(await resourceSubPath("POST", "/disable", questions())).toEqual({ to: "operation" });
  });

  it("aps/links on GET; any other verb there is a custom operation's path", async () => {
    expect(await resourceSubPath("GET", "/aps/links", questions())).toEqual({ to: "links" });
    expect(await resourceSubPath("POST", "/aps/links", questions())).toEqual({ to: "operation" });
  });

  it("a relation the resource's type declares: listing, linking, unlinking", async () => {
    expect(await resourceSubPath("GET", "/users", questions())).toEqual({ to: "related", relation: "users" });
    expect(await resourceSubPath("POST", "/users", questions())).toEqual({ to: "link", relation: "users" });
    expect(await resourceSubPath("DELETE", `/users/${MEMBER}`, questions())).toEqual({
      to: "unlink",
      relation: "users",
      other: MEMBER,
    });
  });

  it("a relation's path with another verb is 405, not a custom operation", async () => {
    for (const [method, rest] of [
      ["PUT", "/users"],
      ["DELETE", "/users"],
      ["GET", `/users/${MEMBER}`],
      ["POST", `/users/${MEMBER}`],
    ] as const) {
      const error = await resourceSubPath(method, rest, questions()).catch((e: unknown) => e);
      expect(error, `${method} ${rest}`).toBeInstanceOf(ControllerError);
      expect((error as ControllerError).status).toBe(405);
    }
  });

  it("a relation only another type declares, or a path no relation has, is a custom operation's; the resource is read only for a relation's name", async () => {
    const q = questions();
    expect(await resourceSubPath("GET", "/domains", q)).toEqual({ to: "operation" });
    expect(q.reads).toEqual(["domains"]);
    expect(await resourceSubPath("GET", "/usage", q)).toEqual({ to: "operation" });
    expect(await resourceSubPath("POST", "/users/not-an-id", q)).toEqual({ to: "operation" });
    expect(await resourceSubPath("GET", "/logs/2026-01-01", q)).toEqual({ to: "operation" });
    expect(q.reads).toEqual(["domains"]);
  });

  it("a GET is decided by a read only for aps/links and a relation's path: a custom operation's GET enters no read", () => {
    const q = questions();
    expect(decidedByRead("GET", "/aps/links", q)).toBe(true);
    expect(decidedByRead("GET", "/users", q)).toBe(true);
    expect(decidedByRead("GET", "/domains", q)).toBe(true);
    expect(decidedByRead("GET", `/users/${MEMBER}`, q)).toBe(true);
    expect(decidedByRead("GET", "/usage", q)).toBe(false);
    expect(decidedByRead("GET", "/logs/2026-01-01", q)).toBe(false);
    expect(decidedByRead("PUT", "/enable", q)).toBe(false);
    expect(q.reads).toEqual([]);
  });
});
