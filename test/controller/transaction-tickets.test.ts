/**
 * Transaction ids of provisioning calls carry signed claims, so any controller process can tell
 * what an application's call-back with that id is about; a changed, foreign or expired id is
 * nothing but an unknown id.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { TransactionTickets } from "../../runtime/controller/forward/transaction-tickets.ts";

const claims = { resourceId: randomUUID(), typeId: "http://cloudmail.example.com/types/tenant/1.0", instanceId: randomUUID() };

describe("TransactionTickets", () => {
  const key = randomBytes(32);
  const tickets = new TransactionTickets(key);

  it("gives back the claims to any holder of the same key, fingerprint included when there is one", () => {
    const id = tickets.issue(claims);
    expect(id).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(new TransactionTickets(Buffer.from(key)).read(id)).toEqual(claims);
    const install = { ...claims, fingerprint: "AB:CD" };
    expect(tickets.read(tickets.issue(install))).toEqual(install);
    // Two calls about the same resource still get two ids.
    expect(tickets.issue(claims, 1)).not.toBe(tickets.issue(claims, 2));
  });

  it("reads nothing from an id that was changed, signed with another key, expired, or not one of its ids", () => {
    const id = tickets.issue(claims);
    const [payload, mac] = id.split(".") as [string, string];
    const forged = Buffer.from(JSON.stringify({ r: randomUUID(), t: claims.typeId, i: claims.instanceId, x: Date.now() + 60_000 })).toString("base64url");
    expect(tickets.read(`${forged}.${mac}`)).toBeUndefined();
    expect(tickets.read(`${payload}.${mac.slice(0, -2)}AA`)).toBeUndefined();
    expect(new TransactionTickets(randomBytes(32)).read(id)).toBeUndefined();
    expect(tickets.read(tickets.issue(claims, Date.now() - 11 * 60_000))).toBeUndefined();
    for (const other of [undefined, "", randomUUID(), `${id}.x`, "a.b"]) expect(tickets.read(other)).toBeUndefined();
  });
});
