/**
 * `GET /aps/2/types/{id}` serves a declaration as written: a 64-bit integer in it (cloudmail's
 * `archiveQuota` default, 2^53 + 1) comes back exact, not rounded to the nearest double, as the
 * console offers it to whoever prepares a new resource.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startControllerUnderTest } from "../e2e/controller-harness.ts";

const MAILBOX = "http://cloudmail.example.com/types/mailbox/1.0";

describe("type documents keep 64-bit integers exact", () => {
  let running: Awaited<ReturnType<typeof startControllerUnderTest>>;
  beforeAll(async () => {
    running = await startControllerUnderTest("pglite", ["types/examples/cloudmail"]);
  }, 120_000);
  afterAll(async () => {
    await running?.dispose();
  });

  it("serves the declaration's default 9007199254740993 as written", async () => {
    const type = await running.call("GET", `/aps/2/types/${encodeURIComponent(MAILBOX)}`, {
      token: running.adminToken,
    });
    expect(type.status, type.text).toBe(200);
    expect(type.text).toMatch(/"default":\s*9007199254740993[,}\s]/);
    expect(type.text).not.toContain("9007199254740992");
  });
});
