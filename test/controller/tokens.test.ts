import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";

const key = new Uint8Array(32).fill(7);

describe("TokenService", () => {
  it("mints and verifies its own tokens, with and without account and user", async () => {
    const tokens = new TokenService(key);
    expect(await tokens.verify(await tokens.mint({ accountId: "a", userId: "u" }))).toEqual({
      accountId: "a",
      userId: "u",
    });
    expect(await tokens.verify(await tokens.mint({}))).toEqual({});
  });

  it("rejects tampered, foreign-key and expired tokens", async () => {
    const tokens = new TokenService(key);
    const token = await tokens.mint({ accountId: "a" });
    const [h, p, s] = token.split(".");
    const forged = `${h}.${Buffer.from(JSON.stringify({ iss: "aps-gen", acc: "other" })).toString("base64url")}.${s}`;
    await expect(tokens.verify(forged)).rejects.toThrow();
    await expect(new TokenService(new Uint8Array(32).fill(8)).verify(token)).rejects.toThrow();
    const expired = await new SignJWT({ acc: "a" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("aps-gen")
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(key);
    await expect(tokens.verify(expired)).rejects.toThrow();
    await expect(tokens.verify(`${h}.${p}`)).rejects.toThrow();
  });

  describe("external issuer through its JWKS (a real HTTP server)", () => {
    let server: Server;
    let jwksUrl: string;
    let privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
    beforeAll(async () => {
      const pair = await generateKeyPair("RS256");
      privateKey = pair.privateKey;
      const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
      server = createServer((_req, res) => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ keys: [jwk] }));
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it("accepts the issuer's tokens and still its own; refuses another issuer", async () => {
      const tokens = new TokenService(key, { issuer: "https://idp.example", jwksUrl });
      const external = await new SignJWT({ acc: "acc-1" })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer("https://idp.example")
        .setSubject("user-1")
        .sign(privateKey);
      expect(await tokens.verify(external)).toEqual({ accountId: "acc-1", userId: "user-1" });
      expect(await tokens.verify(await tokens.mint({ accountId: "own" }))).toEqual({ accountId: "own" });
      const wrongIssuer = await new SignJWT({ acc: "acc-1" })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer("https://evil.example")
        .sign(privateKey);
      await expect(tokens.verify(wrongIssuer)).rejects.toThrow();
      await expect(new TokenService(key).verify(external)).rejects.toThrow();
    });
  });
});
