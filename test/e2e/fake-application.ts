/**
 * An application endpoint for tests that need answers no well-behaved connector gives (any
 * status, delays, counting): a plain HTTPS server that records every call and answers through
 * a replaceable `answer` function. It keeps the resources it "created" (a POST to a service
 * answered 2xx) and drops them on a DELETE answered 2xx, so a test can compare its view with the
 * controller's.
 */
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ensureControllerTls } from "../../runtime/common/certificate-authority.ts";

/** A call the application received. */
export interface ReceivedCall {
  readonly method: string;
  readonly path: string;
  readonly body: Record<string, unknown> | undefined;
  /** The request headers, names in lower case. */
  readonly headers: Record<string, string | string[] | undefined>;
}

/** What the application answers. */
export interface Answer {
  readonly status: number;
  readonly body?: unknown;
  readonly delayMs?: number;
  /** Reply headers (`aps-info`, `aps-retry-timeout` with a 202). */
  readonly headers?: Record<string, string>;
}

export interface FakeApplication {
  readonly url: string;
  readonly ca: string;
  readonly calls: ReceivedCall[];
  /** Resource ids the application holds, by service ("tenants" -> ids). */
  readonly held: Map<string, Set<string>>;
  /** How many times each resource id was created. */
  readonly created: Map<string, number>;
  /** Replace to change the answers; the default answers every call with success. */
  answer: (call: ReceivedCall) => Answer | Promise<Answer>;
  close(): Promise<void>;
}

/** The default answers: 201 to a provisioning, 200 to a configure or a link, 204 to a delete. */
export function successOf(call: ReceivedCall): Answer {
  if (call.method === "POST" && /^\/[^/]+\/?$/.test(call.path)) return { status: 201, body: {} };
  if (call.method === "DELETE") return { status: 204 };
  return { status: 200, body: {} };
}

export async function startFakeApplication(dir: string): Promise<FakeApplication> {
  const tls = await ensureControllerTls(join(dir, "fake-endpoint"), ["127.0.0.1"]);
  const self: FakeApplication = {
    url: "",
    ca: tls.ca.cert,
    calls: [],
    held: new Map(),
    created: new Map(),
    answer: successOf,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
  const server: Server = createServer({ cert: tls.server.cert, key: tls.server.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const call: ReceivedCall = {
          method: req.method ?? "",
          path: req.url ?? "",
          body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
          headers: req.headers,
        };
        self.calls.push(call);
        const answer = await self.answer(call);
        const ok = answer.status >= 200 && answer.status < 300;
        const service = call.path.split("/")[1] ?? "";
        const provisioned =
          call.method === "POST" && /^\/[^/]+\/?$/.test(call.path)
            ? ((call.body?.aps as { id?: string } | undefined)?.id ?? "")
            : "";
        // The application acts on the call before it answers (the answer may never arrive).
        if (ok && provisioned) {
          if (!self.held.has(service)) self.held.set(service, new Set());
          self.held.get(service)!.add(provisioned);
          self.created.set(provisioned, (self.created.get(provisioned) ?? 0) + 1);
        }
        const deleted = call.method === "DELETE" ? /^\/[^/]+\/([0-9a-f-]{36})$/.exec(call.path)?.[1] : undefined;
        if (ok && deleted) self.held.get(service)?.delete(deleted);
        if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
        const body = answer.body === undefined ? "" : JSON.stringify(answer.body);
        res.writeHead(answer.status, { ...(body ? { "content-type": "application/json" } : {}), ...answer.headers });
        res.end(body);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  (self as { url: string }).url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return self;
}

/** The instance credentials the application got on its install call (`aps.x509.self`: certificate, then key). */
export function credentialsOf(app: FakeApplication): { cert: string; key: string } {
  const install = app.calls.find((c) => c.method === "POST" && (c.body?.aps as { x509?: unknown } | undefined)?.x509);
  if (!install) throw new Error("the application has not been installed");
  const self = (install.body!.aps as { x509: { self: string } }).x509.self;
  const key = /-----BEGIN (RSA )?PRIVATE KEY-----[\s\S]+?-----END (RSA )?PRIVATE KEY-----/.exec(self)![0];
  return { cert: self.replace(key, ""), key };
}

/** A controller as tests call it: a call with a token (both harnesses have this). */
interface Callable {
  call(
    method: string,
    path: string,
    options: { token: string; body?: unknown },
  ): Promise<{ status: number; text: string; json: any }>; // reply shapes vary per call
  readonly adminToken: string;
}

/** Installs the cloudmail example (types/examples/cloudmail) at `app` as the provider's administrator; fails the test unless it is installed. */
export async function installCloudmailAt(t: Callable, app: FakeApplication): Promise<void> {
  const packages = (await t.call("GET", "/aps/2/packages", { token: t.adminToken })).json as {
    id: string;
    slug: string;
  }[];
  const settings = {
    apiEndpoint: "https://api.example",
    apiKey: "key-0123456789abcdef",
    apiSecret: "secret-0123456789",
  };
  const installed = await t.call("POST", "/aps/2/instances", {
    token: t.adminToken,
    body: {
      package: packages.find((p) => p.slug === "cloudmail")!.id,
      endpoint: app.url,
      endpointCa: app.ca,
      settings,
    },
  });
  if (installed.status !== 201) throw new Error(`cloudmail was not installed: ${installed.status} ${installed.text}`);
}

/** What `createCloudmailTenant` made: the customer's account, its subscription and the tenant, by APS id. */
export interface CloudmailTenant {
  readonly account: string;
  readonly subscription: string;
  readonly tenant: string;
}

/**
 * A customer account, a subscription named "mail" and a CloudMail tenant linked to both, each
 * made by the provider's administrator; `tenantProperties` go into the tenant's body. Fails the
 * test unless the tenant is created (201), which needs cloudmail installed (`installCloudmailAt`).
 */
export async function createCloudmailTenant(
  t: Callable,
  tenantProperties: Record<string, unknown> = {},
): Promise<CloudmailTenant> {
  const admin = (path: string, body: unknown) => t.call("POST", path, { token: t.adminToken, body });
  const core = "http://aps-standard.org/types/core";
  const account = (
    await admin("/aps/2/resources", {
      aps: { type: `${core}/account/1.0` },
      companyName: "Customer",
      addressPostal: {},
    })
  ).json.aps.id as string;
  const subscription = (await admin("/aps/2/resources", { aps: { type: `${core}/subscription/1.0` }, name: "mail" }))
    .json.aps.id as string;
  const created = await admin("/aps/2/resources", {
    aps: { type: "http://cloudmail.example.com/types/tenant/1.0" },
    account: { aps: { id: account } },
    subscription: { aps: { id: subscription } },
    ...tenantProperties,
  });
  if (created.status !== 201) throw new Error(`the tenant was not created: ${created.status} ${created.text}`);
  return { account, subscription, tenant: created.json.aps.id as string };
}
