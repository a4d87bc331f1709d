/**
 * CloudMail installed at a running connector, and a customer of it with a subscription, a tenant
 * and a domain: the starting point of the suites that watch what the controller sends an
 * application (secrets-at-rest, console-activity).
 */
import { expect } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import type { BehaviourController } from "./harness.ts";

const T = "http://cloudmail.example.com/types";

export async function cloudmailCustomer(
  t: BehaviourController,
  endpoint: { readonly url: string; readonly ca: string },
  apiSecret: string,
): Promise<{ customer: string; tenant: string; domain: string }> {
  const admin = (method: string, path: string, body?: unknown) =>
    t.call(method, path, { token: t.adminToken, ...(body === undefined ? {} : { body }) });
  const pkg = (await admin("GET", "/aps/2/packages")).json.find((p: { name: string }) => p.name === "CloudMail").id;
  const installed = await admin("POST", "/aps/2/instances", {
    package: pkg,
    endpoint: endpoint.url,
    endpointCa: endpoint.ca,
    settings: { apiEndpoint: "https://api.example", apiKey: "key-0123456789abcdef", apiSecret },
  });
  expect(installed.status, installed.text).toBe(201);
  const account = await admin("POST", "/aps/2/resources", {
    aps: { type: "http://aps-standard.org/types/core/account/1.0" },
    companyName: "C",
    addressPostal: {},
  });
  const customer = await new TokenService(loadKeys(t.dataDir).token).mint({ accountId: account.json.aps.id });
  const sub = await t.call("POST", "/aps/2/resources", {
    token: customer,
    body: { aps: { type: "http://aps-standard.org/types/core/subscription/1.0" } },
  });
  const made = await t.call("POST", "/aps/2/resources", {
    token: customer,
    body: {
      aps: { type: `${T}/tenant/1.0` },
      account: { aps: { id: account.json.aps.id } },
      subscription: { aps: { id: sub.json.aps.id } },
    },
  });
  expect(made.status, made.text).toBe(201);
  const tenant = made.json.aps.id as string;
  const domain = (
    await t.call("POST", "/aps/2/resources", {
      token: customer,
      body: { aps: { type: `${T}/domain/1.0` }, name: "example.com", tenant: { aps: { id: tenant } } },
    })
  ).json.aps.id as string;
  return { customer, tenant, domain };
}
