/**
 * Issue 16 item 1: applications call every /aps/2 route with their instance certificate, the way
 * the PHP runtime (`\APS\Request::getController()`) and Connect/FallBall (`APS-Resource-ID`
 * impersonation, docs/platform-forms.md §1.2-1.4) do. Two applications are installed (cloudmail and
 * vpscloud) at endpoints that record what they receive; each then calls the controller with the
 * certificate it was handed in `aps.x509.self`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "../e2e/controller-harness.ts";
import { credentialsOf, startFakeApplication, successOf, type FakeApplication } from "../e2e/fake-application.ts";
import { httpsClient } from "../helpers/https-client.ts";

const MAIL = "http://cloudmail.example.com/types";
const VPS = "http://vpscloud.example.net/types";
const CORE = "http://aps-standard.org/types/core";

/** The certificate and key of `aps.x509.self` (one PEM text, certificate first). */

describe.each(databases)("application instances call the controller with their certificate on %s", (kind) => {
  let t: ControllerUnderTest;
  let mail: FakeApplication;
  let vps: FakeApplication;
  let asMail: ReturnType<typeof httpsClient>;
  let asVps: ReturnType<typeof httpsClient>;
  let mailInstance = "";
  let customerToken = "";
  let account = "";
  let otherAccount = "";
  let subscription = "";
  let otherSubscription = "";
  let tenant = "";
  let management = "";
  const dir = mkdtempSync(join(tmpdir(), "aps-app-credentials-"));
  const user = "0b8f4a52-3c2e-4a44-9d0c-1d2e3f4a5b6c";

  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    t = await startControllerUnderTest(kind, ["types/examples/cloudmail", "types/examples/vpscloud"], {
      endpointTimeoutMs: 5000,
    });
    mail = await startFakeApplication(join(dir, "mail"));
    vps = await startFakeApplication(join(dir, "vps"));
    // The application answers a custom operation with the headers it received, to show what the controller sent on.
    mail.answer = (call) =>
      call.path.includes("/usage/")
        ? {
            status: 200,
            body: {
              applicationId: call.headers["aps-application-id"] ?? null,
              identityId: call.headers["aps-identity-id"] ?? null,
            },
          }
        : successOf(call);
    const packages = (await admin("GET", "/aps/2/packages")).json as { id: string; slug: string }[];
    const install = async (name: string, app: FakeApplication, settings: Record<string, unknown>) => {
      const r = await admin("POST", "/aps/2/instances", {
        package: packages.find((p) => p.slug === name)!.id,
        endpoint: app.url,
        endpointCa: app.ca,
        settings,
      });
      expect(r.status, r.text).toBe(201);
      return r.json.id as string;
    };
    mailInstance = await install("cloudmail", mail, {
      apiEndpoint: "https://api.example",
      apiKey: "key-0123456789abcdef",
      apiSecret: "secret-0123456789",
    });
    await install("vpscloud", vps, { apiUrl: "https://vps.example", apiToken: "token-0123456789" });
    asMail = httpsClient(t.controller.url, t.controller.caCert, credentialsOf(mail));
    asVps = httpsClient(t.controller.url, t.controller.caCert, credentialsOf(vps));

    account = (
      await admin("POST", "/aps/2/resources", {
        aps: { type: `${CORE}/account/1.0` },
        companyName: "Customer",
        addressPostal: {},
      })
    ).json.aps.id;
    otherAccount = (
      await admin("POST", "/aps/2/resources", {
        aps: { type: `${CORE}/account/1.0` },
        companyName: "Other",
        addressPostal: {},
      })
    ).json.aps.id;
    customerToken = await new TokenService(loadKeys(t.dataDir).token).mint({ accountId: account, userId: user });
    const customer = (method: string, path: string, body?: unknown) =>
      t.call(method, path, { token: customerToken, ...(body === undefined ? {} : { body }) });
    subscription = (
      await customer("POST", "/aps/2/resources", { aps: { type: `${CORE}/subscription/1.0` }, name: "mail" })
    ).json.aps.id;
    otherSubscription = (
      await customer("POST", "/aps/2/resources", { aps: { type: `${CORE}/subscription/1.0` }, name: "not linked" })
    ).json.aps.id;
    const tr = await customer("POST", "/aps/2/resources", {
      aps: { type: `${MAIL}/tenant/1.0` },
      account: { aps: { id: account } },
      subscription: { aps: { id: subscription } },
    });
    expect(tr.status, tr.text).toBe(201);
    tenant = tr.json.aps.id;
    const mr = await customer("POST", "/aps/2/resources", {
      aps: { type: `${VPS}/management/1.1` },
      account: { aps: { id: account } },
      subscription: { aps: { id: otherSubscription } },
    });
    expect(mr.status, mr.text).toBe(201);
    management = mr.json.aps.id;
  }, 90_000);
  afterAll(async () => {
    await mail?.close();
    await vps?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists its own resources with RQL, in the forms the PHP runtime and dojo stores write", async () => {
    for (const path of [
      `/aps/2/resources?implementing(${MAIL}/tenant/1.0)`,
      `/aps/2/resources/?implementing(${encodeURIComponent(`${MAIL}/tenant/1.0`)})`,
    ]) {
      const r = await asMail("GET", path);
      expect(r.status, r.text).toBe(200);
      expect(r.json.map((x: { aps: { id: string } }) => x.aps.id)).toEqual([tenant]);
    }
    // Without credentials the same call is still refused.
    expect((await t.call("GET", "/aps/2/resources")).status).toBe(401);
  });

  it("sees the platform resources its resources refer to, and nothing of another application's that is not linked to its own", async () => {
    const subs = (await asMail("GET", `/aps/2/resources?implementing(${CORE}/subscription/1.0)`)).json.map(
      (x: { aps: { id: string } }) => x.aps.id,
    );
    expect(subs).toEqual([subscription]);
    const accounts = (await asMail("GET", `/aps/2/resources?implementing(${CORE}/account/1.0)`)).json.map(
      (x: { aps: { id: string } }) => x.aps.id,
    );
    // The customer's (its tenant's) and the provider's (its root resource's), not another customer's.
    expect(accounts.sort()).toEqual([account, t.controller.provider.accountId].sort());
    expect((await asMail("GET", `/aps/2/resources/${account}`)).status).toBe(200);
    expect((await asMail("GET", `/aps/2/resources/${otherAccount}`)).status).toBe(404);
    // vpscloud's management is not linked to anything of cloudmail's: invisible to it, and the other way round.
    expect((await asMail("GET", `/aps/2/resources/${management}`)).status).toBe(404);
    expect((await asVps("GET", `/aps/2/resources/${tenant}`)).status).toBe(404);
    expect((await asVps("GET", `/aps/2/resources?implementing(${MAIL}/tenant/1.0)`)).json).toEqual([]);
    expect((await asVps("GET", `/aps/2/resources/${management}`)).status).toBe(200);
  });

  it("reads its encrypted properties and writes readonly ones on its own resources; users still cannot", async () => {
    const root = (await admin("GET", "/aps/2/instances")).json.find(
      (i: { id: string }) => i.id === mailInstance,
    ).rootResource;
    // apiSecret is encrypted and hidden from every token caller; the serving application reads it.
    expect((await asMail("GET", `/aps/2/resources/${root}`)).json.apiSecret).toBe("secret-0123456789");
    expect((await admin("GET", `/aps/2/resources/${root}`)).json.apiSecret).toBeUndefined();
    const changed = await asMail("PUT", `/aps/2/resources/${tenant}`, {
      body: { organizationId: "org-42", retentionDays: 30 },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json).toMatchObject({ organizationId: "org-42", retentionDays: 30 });
    const byUser = await t.call("PUT", `/aps/2/resources/${tenant}`, {
      token: customerToken,
      body: { organizationId: "org-43" },
    });
    expect(byUser.status).toBe(400);
  });

  it("provisions, links, configures and unprovisions through /aps/2/resources; what it provisions as itself belongs to the provider", async () => {
    const created = await asMail("POST", "/aps/2/resources/", {
      body: {
        aps: { type: `${MAIL}/domain/1.0` },
        name: "example.org",
        verified: true,
        tenant: { aps: { id: tenant } },
      },
    });
    expect(created.status, created.text).toBe(201);
    const domain = created.json.aps.id as string;
    expect(created.json.verified).toBe(true);
    // Provisioned as itself: the provider's. It links to the customer's tenant, so the customer is
    // a referrer on it (referrer holds both ways of a link, docs/aps/security.md): it reads it but may
    // not unprovision it, which only admin and owner may.
    expect((await t.call("GET", `/aps/2/resources/${domain}`, { token: customerToken })).status).toBe(200);
    expect((await t.call("DELETE", `/aps/2/resources/${domain}`, { token: customerToken })).status).toBe(403);
    const linked = await asMail("POST", `/aps/2/resources/${tenant}/domains`, { body: { aps: { id: domain } } });
    expect(linked.status, linked.text).toBe(200);
    expect(
      (await asMail("GET", `/aps/2/resources/${tenant}/domains`)).json.map((d: { aps: { id: string } }) => d.aps.id),
    ).toContain(domain);
    expect((await asMail("DELETE", `/aps/2/resources/${domain}`)).status).toBe(204);
    expect((await asMail("GET", `/aps/2/resources/${domain}`)).status).toBe(404);
  });

  it("acts as the customer with APS-Resource-ID: the customer's account, no APS-Identity-ID, APS-Application-ID sent on", async () => {
    const headers = { "APS-Resource-ID": tenant };
    const created = await asMail("POST", "/aps/2/resources", {
      headers,
      body: { aps: { type: `${MAIL}/domain/1.0` }, name: "customer.example", tenant: { aps: { id: tenant } } },
    });
    expect(created.status, created.text).toBe(201);
    // It belongs to the customer now: the customer's token sees it.
    expect((await t.call("GET", `/aps/2/resources/${created.json.aps.id}`, { token: customerToken })).status).toBe(200);
    const provisioned = mail.calls.filter((c) => c.method === "POST" && c.path.startsWith("/domains")).at(-1)!;
    expect(provisioned.headers["aps-application-id"]).toBe(mailInstance);
    expect(provisioned.headers["aps-identity-id"]).toBeUndefined();
    // As the customer it sees what the customer sees: the other subscription too, which cloudmail alone does not reach.
    const subs = (await asMail("GET", `/aps/2/resources?implementing(${CORE}/subscription/1.0)`, { headers })).json.map(
      (x: { aps: { id: string } }) => x.aps.id,
    );
    expect(subs.sort()).toEqual([subscription, otherSubscription].sort());
    // A custom operation of its own resource, through the controller.
    const usage = await asMail("GET", `/aps/2/resources/${tenant}/usage/2026-11`, { headers });
    expect(usage.status, usage.text).toBe(200);
    expect(usage.json).toEqual({ applicationId: mailInstance, identityId: null });
    // A user's call carries the user, not an application.
    const byUser = await t.call("GET", `/aps/2/resources/${tenant}/usage/2026-11`, { token: customerToken });
    expect(byUser.json).toEqual({ applicationId: null, identityId: user });
  });

  it("cannot impersonate through a resource that is not its own", async () => {
    for (const id of [management, account, "not-a-uuid"]) {
      const r = await asMail("GET", "/aps/2/resources", { headers: { "APS-Resource-ID": id } });
      expect(r.status, id).toBe(403);
      expect(r.json.message).toContain("APS-Resource-ID");
    }
  });

  it("is no provider administrator: provider-only collections stay closed to it", async () => {
    expect((await asMail("GET", "/aps/2/tasks")).status).toBe(403);
    expect((await asMail("GET", "/aps/2/instances")).status).toBe(403);
  });
});
