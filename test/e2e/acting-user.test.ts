/**
 * Issue 28 item 6: the acting user. Every call the controller forwards for a token that names a
 * user of an account carries that user's id as `APS-Identity-ID`, whatever the call: an instance's
 * install, new credentials, upgrade and uninstall; provisioning, its asynchronous repeat and its
 * undo; configure, links, Suspendable, custom and static operations, unprovisioning. Calls made by
 * applications (instance certificate, as themselves or as a customer; OAuth) and by anonymous
 * tokens (also one naming a user but no account) carry none
 * (https://docs.cloudblue.com/cbc/sdk/21.0/api/rest/protocol/headers).
 *
 * Tokens are issued as `aps-gen token --account <id> --user <id>` issues them (the controller's
 * signing key); calls go over HTTPS to fake endpoints (test/e2e/fake-application.ts) that record
 * what they get.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizationHeader } from "../../runtime/controller/auth/oauth-signature.ts";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import { filesOf } from "../helpers/files-of.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { repoRoot } from "../helpers/paths.ts";
import { until } from "../helpers/until.ts";
import { databases, startControllerUnderTest, type ControllerUnderTest } from "./controller-harness.ts";
import {
  credentialsOf,
  startFakeApplication,
  successOf,
  type FakeApplication,
  type ReceivedCall,
} from "./fake-application.ts";

const MAIL = "http://cloudmail.example.com/types";
const UPGRADE = "http://upgrade.example/types";
const KIOSK = "http://kiosk.example/types";
const CORE = "http://aps-standard.org/types/core";
const MAIL_SETTINGS = {
  apiEndpoint: "https://api.example",
  apiKey: "key-0123456789abcdef",
  apiSecret: "secret-0123456789",
};
const OAUTH = { key: "acting-user-key", secret: "acting-user-secret-0123456789" };

describe.each(databases)("APS-Identity-ID of forwarded calls on %s", (kind) => {
  let t: ControllerUnderTest;
  let mint: TokenService;
  let mail: FakeApplication;
  let upgrade: FakeApplication;
  let kiosk: FakeApplication;
  const dir = mkdtempSync(join(tmpdir(), "aps-acting-user-"));
  const providerUser = randomUUID();
  const customerUser = randomUUID();
  let asProviderUser = "";
  let asCustomerUser = "";
  let customerAccount = "";
  const ids = { mail: "", upgrade: "", tenant: "", domain: "", mailbox: "" };

  /** What an endpoint got: `<method> <path, ids as {id}> as <whose APS-Identity-ID, or "none">`. */
  const seen = (calls: readonly ReceivedCall[]) =>
    calls.map((c) => {
      const identity = c.headers["aps-identity-id"];
      const who =
        identity === undefined
          ? "none"
          : identity === customerUser
            ? "customer user"
            : identity === providerUser
              ? "provider user"
              : `someone else (${String(identity)})`;
      return `${c.method} ${c.path.split("?")[0]!.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "{id}")} as ${who}`;
    });
  const as = (token: string) => (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token, ...(body === undefined ? {} : { body }) });
  const packageOf = async (appId: string) =>
    ((await t.call("GET", "/aps/2/packages", { token: t.adminToken })).json as { id: string; appId: string }[]).find(
      (p) => p.appId === appId,
    )!.id;
  /** The calls `app` gets while `action` runs. */
  const during = async (app: FakeApplication, action: () => Promise<void>) => {
    const from = app.calls.length;
    await action();
    return app.calls.slice(from);
  };

  beforeAll(async () => {
    t = await startControllerUnderTest(
      kind,
      ["types/examples/cloudmail", "test/fixtures/upgrade/v1", "test/fixtures/controller/kiosk"],
      { endpointTimeoutMs: 5000 },
    );
    mint = new TokenService(loadKeys(t.dataDir).token);
    asProviderUser = await mint.mint({ accountId: t.controller.provider.accountId, userId: providerUser });
    customerAccount = (
      await as(t.adminToken)("POST", "/aps/2/resources", {
        aps: { type: `${CORE}/account/1.0` },
        companyName: "Customer",
        addressPostal: {},
      })
    ).json.aps.id;
    asCustomerUser = await mint.mint({ accountId: customerAccount, userId: customerUser });
    mail = await startFakeApplication(join(dir, "mail"));
    upgrade = await startFakeApplication(join(dir, "upgrade"));
    kiosk = await startFakeApplication(join(dir, "kiosk"));
  }, 60_000);
  afterAll(async () => {
    for (const app of [mail, upgrade, kiosk]) await app?.close();
    await t?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it("installs instances for a provider's user: the install call carries the user", async () => {
    const provider = as(asProviderUser);
    const calls = await during(mail, async () => {
      const r = await provider("POST", "/aps/2/instances", {
        package: await packageOf("http://cloudmail.example.com/cloudmail"),
        endpoint: mail.url,
        endpointCa: mail.ca,
        settings: MAIL_SETTINGS,
      });
      expect(r.status, r.text).toBe(201);
      ids.mail = r.json.id;
    });
    expect(seen(calls)).toEqual(["POST /cloudmail as provider user"]);
    // The platform's form of the same install (apsconnect-cli, the Connect extension), with OAuth.
    const oauth = await during(upgrade, async () => {
      const r = await provider("POST", "/aps/2/applications/", {
        aps: {
          package: { type: "http://upgrade.example/app" },
          endpoint: upgrade.url,
          endpointCa: upgrade.ca,
          auth: { oauth: OAUTH },
        },
        apiUrl: "https://api.example",
      });
      expect(r.status, r.text).toBe(200);
      ids.upgrade = r.json.aps.id;
    });
    expect(seen(oauth)).toEqual(["POST /app as provider user"]);
  });

  it("forwards a customer user's provisioning, configure, links, operations and unprovisioning with the user", async () => {
    const customer = as(asCustomerUser);
    const calls = await during(mail, async () => {
      const sub = (
        await customer("POST", "/aps/2/resources", { aps: { type: `${CORE}/subscription/1.0` }, name: "mail" })
      ).json.aps.id;
      const tenant = await customer("POST", "/aps/2/resources", {
        aps: { type: `${MAIL}/tenant/1.0` },
        account: { aps: { id: customerAccount } },
        subscription: { aps: { id: sub } },
      });
      expect(tenant.status, tenant.text).toBe(201);
      ids.tenant = tenant.json.aps.id;
      const domain = await customer("POST", "/aps/2/resources", {
        aps: { type: `${MAIL}/domain/1.0` },
        name: "example.com",
        tenant: { aps: { id: ids.tenant } },
      });
      expect(domain.status, domain.text).toBe(201);
      ids.domain = domain.json.aps.id;
      const mailbox = await customer("POST", "/aps/2/resources", {
        aps: { type: `${MAIL}/mailbox/1.0` },
        localPart: "ann",
        password: "0123456789",
        tenant: { aps: { id: ids.tenant } },
        domain: { aps: { id: ids.domain } },
      });
      expect(mailbox.status, mailbox.text).toBe(201);
      ids.mailbox = mailbox.json.aps.id;
      expect((await customer("PUT", `/aps/2/resources/${ids.mailbox}`, { displayName: "Ann" })).status).toBe(200);
      expect((await customer("GET", `/aps/2/resources/${ids.tenant}/usage/2026-11`)).status).toBe(200);
      expect(
        (
          await customer("POST", `/aps/2/static/${encodeURIComponent(`${MAIL}/mailbox/1.0`)}/checkAvailability`, {
            localPart: "bob",
            domain: "example.com",
          })
        ).status,
      ).toBe(200);
      // A second tenant takes the mailbox into its collection, then lets it go.
      const sub2 = (
        await customer("POST", "/aps/2/resources", { aps: { type: `${CORE}/subscription/1.0` }, name: "mail 2" })
      ).json.aps.id;
      const other = (
        await customer("POST", "/aps/2/resources", {
          aps: { type: `${MAIL}/tenant/1.0` },
          account: { aps: { id: customerAccount } },
          subscription: { aps: { id: sub2 } },
        })
      ).json.aps.id;
      expect((await customer("POST", `/aps/2/resources/${other}/mailboxes`, { aps: { id: ids.mailbox } })).status).toBe(
        200,
      );
      expect((await customer("DELETE", `/aps/2/resources/${other}/mailboxes/${ids.mailbox}`)).status).toBe(204);
      expect((await customer("DELETE", `/aps/2/resources/${other}`)).status).toBe(204);
    });
    expect(seen(calls)).toEqual([
      "POST /tenants as customer user",
      "POST /domains as customer user",
      "POST /mailboxes as customer user",
      "PUT /mailboxes/{id} as customer user",
      "GET /tenants/{id}/usage/2026-11 as customer user",
      "POST /mailboxes/checkAvailability as customer user",
      "POST /tenants as customer user",
      "POST /tenants/{id}/mailboxes as customer user",
      "DELETE /tenants/{id}/mailboxes/{id} as customer user",
      "DELETE /tenants/{id} as customer user",
    ]);
  });

  it("repeats an accepted provisioning in the async phase with the user, and undoes a failed one with the user", async () => {
    const customer = as(asCustomerUser);
    let accepted = 0;
    mail.answer = (call) => {
      if (
        call.method === "POST" &&
        call.path === "/mailboxes" &&
        (call.body as { localPart?: string }).localPart === "later" &&
        accepted++ === 0
      )
        return { status: 202, headers: { "aps-info": "creating", "aps-retry-timeout": "0" } };
      // Properties the domain type does not have: the controller refuses them and tells the application to remove the domain.
      if (call.method === "POST" && call.path === "/domains")
        return { status: 200, body: { verified: "not a boolean" } };
      return successOf(call);
    };
    try {
      const calls = await during(mail, async () => {
        const r = await customer("POST", "/aps/2/resources", {
          aps: { type: `${MAIL}/mailbox/1.0` },
          localPart: "later",
          password: "0123456789",
          tenant: { aps: { id: ids.tenant } },
          domain: { aps: { id: ids.domain } },
        });
        expect(r.status, r.text).toBe(202);
        await until(
          "the provisioning task to finish",
          async () => (await customer("GET", `/aps/2/resources/${r.json.aps.id}`)).json.aps.status === "aps:ready",
          15_000,
        );
        const failed = await customer("POST", "/aps/2/resources", {
          aps: { type: `${MAIL}/domain/1.0` },
          name: "example.org",
          tenant: { aps: { id: ids.tenant } },
        });
        expect(failed.status, failed.text).toBe(502);
      });
      expect(seen(calls)).toEqual([
        "POST /mailboxes as customer user",
        "POST /mailboxes as customer user",
        "POST /domains as customer user",
        "DELETE /domains/{id} as customer user",
      ]);
      expect(calls[1]!.headers["aps-request-phase"]).toBe("async");
    } finally {
      mail.answer = successOf;
    }
  });

  it("applications send none: an instance certificate, as itself or as a customer, and an OAuth key", async () => {
    const asMail = httpsClient(t.controller.url, t.controller.caCert, credentialsOf(mail));
    const byCertificate = await during(mail, async () => {
      const itself = await asMail("POST", "/aps/2/resources", {
        body: { aps: { type: `${MAIL}/domain/1.0` }, name: "itself.example", tenant: { aps: { id: ids.tenant } } },
      });
      expect(itself.status, itself.text).toBe(201);
      const impersonating = await asMail("POST", "/aps/2/resources", {
        headers: { "APS-Resource-ID": ids.tenant },
        body: { aps: { type: `${MAIL}/domain/1.0` }, name: "customer.example", tenant: { aps: { id: ids.tenant } } },
      });
      expect(impersonating.status, impersonating.text).toBe(201);
      expect((await asMail("GET", `/aps/2/resources/${ids.tenant}/usage/2026-11`)).status).toBe(200);
    });
    expect(seen(byCertificate)).toEqual([
      "POST /domains as none",
      "POST /domains as none",
      "GET /tenants/{id}/usage/2026-11 as none",
    ]);
    for (const c of byCertificate) expect(c.headers["aps-application-id"]).toBe(ids.mail);
    const path = "/aps/2/resources";
    const byOAuth = await during(upgrade, async () => {
      const signed = await t.call("POST", path, {
        headers: { authorization: authorizationHeader("POST", `${t.controller.url}${path}`, OAUTH) },
        body: { aps: { type: `${UPGRADE}/tenant/1.0` }, name: "t1" },
      });
      expect(signed.status, signed.text).toBe(201);
    });
    expect(seen(byOAuth)).toEqual(["POST /tenants as none"]);
    expect(byOAuth[0]!.headers["aps-application-id"]).toBe(ids.upgrade);
  });

  it("anonymous tokens send none, also one that names a user but no account", async () => {
    const provider = as(asProviderUser);
    const installed = await provider("POST", "/aps/2/instances", {
      package: await packageOf("http://kiosk.example/app"),
      endpoint: kiosk.url,
      endpointCa: kiosk.ca,
      settings: {},
    });
    expect(installed.status, installed.text).toBe(201);
    const board = await provider("POST", "/aps/2/resources", {
      aps: { type: `${KIOSK}/board/1.0` },
      title: "Opening hours",
    });
    expect(board.status, board.text).toBe(201);
    const calls = await during(kiosk, async () => {
      for (const token of [await mint.mint({}), await mint.mint({ userId: randomUUID() })]) {
        const r = await t.call("GET", `/aps/2/resources/${board.json.aps.id}/notice`, { token });
        expect(r.status, r.text).toBe(200);
      }
      // The provider's user, for contrast.
      expect((await provider("GET", `/aps/2/resources/${board.json.aps.id}/notice`)).status).toBe(200);
    });
    expect(seen(calls)).toEqual([
      "GET /boards/{id}/notice as none",
      "GET /boards/{id}/notice as none",
      "GET /boards/{id}/notice as provider user",
    ]);
  });

  it("forwards a provider user's Suspendable operations, new credentials, upgrade and uninstall with the user", async () => {
    const provider = as(asProviderUser);
    const calls = await during(mail, async () => {
      expect((await provider("PUT", `/aps/2/resources/${ids.mailbox}/disable`)).status).toBe(200);
      expect((await provider("PUT", `/aps/2/resources/${ids.mailbox}/enable`)).status).toBe(200);
      expect((await provider("POST", `/aps/2/instances/${ids.mail}/credentials`)).status).toBe(200);
    });
    expect(seen(calls)).toEqual([
      "PUT /mailboxes/{id}/disable as provider user",
      "PUT /mailboxes/{id}/enable as provider user",
      "PUT /cloudmail/{id} as provider user",
    ]);
    const imported = await t.call("POST", "/aps/2/packages", {
      token: t.adminToken,
      rawBody: zipSync(filesOf(join(repoRoot, "test/fixtures/upgrade/v2"))),
      headers: { "content-type": "application/zip" },
    });
    expect(imported.status, imported.text).toBe(201);
    const upgraded = await during(upgrade, async () => {
      const r = await provider("POST", `/aps/2/applications/${ids.upgrade}/upgrade`, {
        aps: { package: { version: "1.1", release: "1" } },
        region: "eu",
      });
      expect(r.status, r.text).toBe(200);
    });
    expect(seen(upgraded)).toEqual(["POST /app/{id}/upgrade as provider user"]);
    const removed = await during(mail, async () => {
      expect((await provider("DELETE", `/aps/2/instances/${ids.mail}`)).status).toBe(200);
    });
    // Dependents first, the application root last (instances/uninstall-order.ts).
    expect(seen(removed).sort()).toEqual(
      [
        "DELETE /cloudmail/{id}",
        "DELETE /domains/{id}",
        "DELETE /domains/{id}",
        "DELETE /domains/{id}",
        "DELETE /mailboxes/{id}",
        "DELETE /mailboxes/{id}",
        "DELETE /tenants/{id}",
      ].map((l) => `${l} as provider user`),
    );
  });
});
