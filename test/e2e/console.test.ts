/**
 * The console (`aps-gen serve` at /console/) in a real browser: Debian's Chromium driven by
 * playwright-core (test/helpers/browser.ts), against `aps-gen serve` as a process running the
 * built package (dist/console holds the assets), with fake application endpoints behind it.
 *
 * Each test signs in on a page of its own with the provider administrator's token, finds what it
 * acts on by the accessible names the console promises (docs/console.md), and asserts what the
 * controller or the application saw, not only what the page shows. Every page it opens must end
 * with no uncaught exception, no Content-Security-Policy violation, no console error other than
 * the failed requests the test provoked, and no serious or critical axe-core finding.
 *
 * `CONSOLE_SCREENSHOTS=1` writes a screenshot of each page to docs/console/ (docs/console.md shows them).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TokenService } from "../../runtime/controller/auth/tokens.ts";
import { loadKeys } from "../../runtime/controller/support/data-directory.ts";
import {
  browserSkipReason,
  launchChromium,
  screenshot,
  seriousAxeViolations,
  watchedPage,
  type WatchedPage,
} from "../helpers/browser.ts";
import { httpsClient } from "../helpers/https-client.ts";
import { repoRoot } from "../helpers/paths.ts";
import { until } from "../helpers/until.ts";
import { zipFolder } from "../helpers/zip-folder.ts";
import {
  installCloudmailAt,
  startFakeApplication,
  successOf,
  type FakeApplication,
  type ReceivedCall,
} from "./fake-application.ts";
import { serveProcess, type ServeProcess } from "./serve-process.ts";

const ACCOUNT = "http://aps-standard.org/types/core/account/1.0";
const SUBSCRIPTION = "http://aps-standard.org/types/core/subscription/1.0";
const PA_ACCOUNT = "http://parallels.com/aps/types/pa/account/1.2";
const T = "http://cloudmail.example.com/types";
const DOMAIN = `${T}/domain/1.0`;
const MAILBOX = `${T}/mailbox/1.0`;
const TENANT = `${T}/tenant/1.0`;
const CHANGED = "http://aps-standard.org/core/events/changed";
/** The key the console keeps the token under (sessionStorage only). */
const TOKEN_KEY = "aps-gen-console-token";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Payloads that run script if the console ever puts a value into the page as HTML or as a link. */
const HOSTILE = {
  img: "<img src=x onerror=window.__pwned=1>",
  script: "<script>window.__pwned=1</script>",
  link: "javascript:window.__pwned=1",
  svg: '"><svg onload=window.__pwned=1>',
};

const skip = browserSkipReason();

describe.skipIf(skip !== undefined)(`the console in Chromium${skip ? ` (skipped: ${skip})` : ""}`, () => {
  const dir = mkdtempSync(join(tmpdir(), "aps-console-"));
  const dataDir = join(dir, "data");
  let serve: ServeProcess;
  let base = "";
  let api: ReturnType<typeof httpsClient>;
  let adminToken = "";
  let ownerToken = "";
  let mail: FakeApplication;
  let browser: Browser;
  let context: BrowserContext;
  const ids = { account: "", subscription: "", tenant: "" };
  /** Pages opened by the test running now; each is checked and closed after it. */
  const opened: WatchedPage[] = [];

  beforeAll(async () => {
    mail = await startFakeApplication(join(dir, "mail"));
    // One attempt per notification: a refused one is a dead letter at once.
    serve = await serveProcess(dataDir, undefined, [
      "--event-attempts",
      "1",
      "--event-retry",
      "0",
      "--endpoint-timeout",
      "5",
    ]);
    base = await serve.url;
    const ca = readFileSync(join(dataDir, "tls/ca.crt"), "utf8");
    api = httpsClient(base, ca);
    adminToken = readFileSync(join(dataDir, "admin.token"), "utf8").trim();
    await installCloudmailAt({ adminToken, call: api }, mail);
    const account = await api("POST", "/aps/2/resources", {
      token: adminToken,
      body: { aps: { type: ACCOUNT }, companyName: "Console Co", addressPostal: {} },
    });
    ids.account = account.json.aps.id;
    ownerToken = await new TokenService(loadKeys(dataDir).token).mint({ accountId: ids.account });
    const subscription = await api("POST", "/aps/2/resources", {
      token: ownerToken,
      body: { aps: { type: SUBSCRIPTION } },
    });
    ids.subscription = subscription.json.aps.id;
    const tenant = await api("POST", "/aps/2/resources", {
      token: ownerToken,
      body: {
        aps: { type: TENANT },
        account: { aps: { id: ids.account } },
        subscription: { aps: { id: ids.subscription } },
      },
    });
    expect(tenant.status, tenant.text).toBe(201);
    ids.tenant = tenant.json.aps.id;
    browser = await launchChromium([ca, readFileSync(join(dataDir, "tls/server.crt"), "utf8")]);
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    if (serve && serve.child.exitCode === null && serve.child.signalCode === null) {
      const gone = new Promise((r) => serve.child.once("exit", r));
      serve.child.kill("SIGTERM");
      await gone;
    }
    await mail?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // A failed test shows where each of its pages was and what it said; then every page of it is closed.
  afterEach(async (context) => {
    for (const w of opened.splice(0)) {
      if (context.task.result?.state === "fail") {
        const text = await w.page
          .locator("body")
          .textContent({ timeout: 2_000 })
          .then((t) => t ?? "")
          .catch((e: Error) => e.message);
        console.log(`page at ${w.page.url()}:\n${text.slice(0, 3_000)}`);
      }
      await w.page.close();
    }
  });

  /** A new tab on the console (no token in it yet). */
  async function open(): Promise<WatchedPage> {
    const watched = await watchedPage(context);
    opened.push(watched);
    return watched;
  }

  /** A new tab, signed in with the administrator's token (or `token`) through the form, then at `route` ("#/types"). */
  async function signedIn(route = "#/", token = adminToken): Promise<WatchedPage> {
    const watched = await open();
    const { page } = watched;
    await page.goto(`${base}/console/`);
    await page.getByLabel("Token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("navigation").getByRole("link", { name: "Types" }).waitFor();
    if (route !== "#/") await page.goto(`${base}/console/${route}`);
    return watched;
  }

  /**
   * What every page must end with: no uncaught exception, no CSP violation, no console error but
   * the failed loads the test provoked (`expectedFailures`: HTTP statuses), nothing serious for axe.
   */
  async function expectClean(watched: WatchedPage, expectedFailures: readonly number[] = []): Promise<void> {
    const provoked = (line: string) => expectedFailures.some((status) => line.includes(`status of ${status}`));
    expect(watched.pageErrors).toEqual([]);
    expect(watched.cspViolations).toEqual([]);
    expect(watched.consoleErrors.filter((line) => !provoked(line))).toEqual([]);
    expect(await seriousAxeViolations(watched.page)).toEqual([]);
  }

  /** The error text the console shows for the form field labelled `label` (role="alert", named by aria-describedby). */
  async function fieldError(page: Page, label: string): Promise<Locator> {
    const field = page.getByLabel(label, { exact: true });
    return until(
      `field ${label} to be described by an error`,
      async () => {
        // aria-describedby may name a hint as well: the error is the one that is an alert.
        const ids = ((await field.getAttribute("aria-describedby")) ?? "").split(/\s+/).filter(Boolean);
        const alert = ids.length ? page.locator(ids.map((id) => `[id="${id}"][role="alert"]`).join(", ")) : undefined;
        return alert && (await alert.count()) > 0 ? alert : undefined;
      },
      10_000,
    );
  }

  /** The section of the page headed `name`. */
  const section = (page: Page, name: string) =>
    page.locator("section", { has: page.getByRole("heading", { name, exact: true }) });

  /** The calls `app` received since `from` (an index into its calls) that `match`. */
  const callsSince = (app: FakeApplication, from: number, match: (c: ReceivedCall) => boolean) =>
    app.calls.slice(from).filter(match);

  async function provisionAsOwner(body: Record<string, unknown>): Promise<string> {
    const created = await api("POST", "/aps/2/resources", { token: ownerToken, body });
    expect(created.status, created.text).toBeLessThan(300);
    return created.json.aps.id as string;
  }

  async function domainNamed(name: string): Promise<string> {
    return provisionAsOwner({ aps: { type: DOMAIN }, name, tenant: { aps: { id: ids.tenant } } });
  }

  it("signs in with a token kept in sessionStorage only, sent as APS-Token and in no URL; refuses a wrong one; signs out", async () => {
    const watched = await open();
    const { page } = watched;
    const apiHeaders: (string | undefined)[] = [];
    page.on("request", (r) => {
      if (new URL(r.url()).pathname.startsWith("/aps/2/")) apiHeaders.push(r.headers()["aps-token"]);
    });
    const response = await page.goto(`${base}/console/`);
    expect(response?.status()).toBe(200);
    const csp = response?.headers()["content-security-policy"] ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(response?.headers()["x-content-type-options"]).toBe("nosniff");
    await page.getByLabel("Token").waitFor();
    await screenshot(page, "sign-in");
    await expectClean(watched);

    await page.getByLabel("Token").fill("not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").first().waitFor();
    expect(await page.getByRole("navigation").getByRole("link", { name: "Types" }).count()).toBe(0);

    await page.getByLabel("Token").fill(adminToken);
    await page.getByRole("button", { name: "Sign in" }).click();
    const nav = page.getByRole("navigation");
    for (const name of ["Types", "Graph", "Resources", "Applications", "Activity"])
      await nav.getByRole("link", { name }).waitFor();
    await screenshot(page, "overview");
    expect(await page.evaluate(`sessionStorage.getItem(${JSON.stringify(TOKEN_KEY)})`)).toBe(adminToken);
    expect(await page.evaluate("JSON.stringify(localStorage)")).not.toContain(adminToken);
    expect(await page.evaluate("document.cookie")).toBe("");
    expect(
      watched.requests.filter((r) => r.includes(adminToken) || r.includes(encodeURIComponent(adminToken))),
    ).toEqual([]);
    expect(page.url()).not.toContain(adminToken);
    // Every API call after signing in carries the token as APS-Token.
    expect(apiHeaders.length).toBeGreaterThan(0);
    expect(apiHeaders.at(-1)).toBe(adminToken);
    await expectClean(watched, [401, 403]);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Token").waitFor();
    expect(await page.evaluate(`sessionStorage.getItem(${JSON.stringify(TOKEN_KEY)})`)).toBeNull();
    // A page opened at a deep link without a token shows the sign-in form, not the page.
    await page.goto(`${base}/console/#/types`);
    await page.getByLabel("Token").waitFor();
  }, 60_000);

  it("is usable by keyboard alone: sign in, reach the navigation with Tab, follow a link with Enter", async () => {
    const watched = await open();
    const { page } = watched;
    await page.goto(`${base}/console/`);
    await page.getByLabel("Token").focus();
    await page.keyboard.type(adminToken);
    // The token field may be a textarea (a token is long), where Enter is a new line: Tab to the button.
    await page.keyboard.press("Tab");
    expect(await page.getByRole("button", { name: "Sign in" }).evaluate(isFocused)).toBe(true);
    await page.keyboard.press("Enter");
    const types = page.getByRole("navigation").getByRole("link", { name: "Types" });
    await types.waitFor();
    let reached = false;
    for (let i = 0; i < 30 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await types.evaluate(isFocused);
    }
    expect(reached, "Tab reaches the Types link").toBe(true);
    await page.keyboard.press("Enter");
    await page.getByRole("link", { name: MAILBOX, exact: true }).waitFor();
    expect(new URL(page.url()).hash).toBe("#/types");
    await expectClean(watched);
  }, 60_000);

  it("lists the types as links and shows a type's members, the inherited ones with the type they come from", async () => {
    const watched = await signedIn();
    const { page } = watched;
    await page.getByRole("navigation").getByRole("link", { name: "Types" }).click();
    await page.getByRole("link", { name: MAILBOX, exact: true }).waitFor();
    for (const id of [DOMAIN, TENANT, ACCOUNT, PA_ACCOUNT])
      expect(await page.getByRole("link", { name: id, exact: true }).count(), id).toBe(1);
    await screenshot(page, "types");
    await expectClean(watched);

    await page.getByRole("link", { name: PA_ACCOUNT, exact: true }).click();
    await page.getByRole("heading", { level: 1 }).waitFor();
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(
      (await api("GET", `/aps/2/types/${encodeURIComponent(PA_ACCOUNT)}`, { token: adminToken })).json.name,
    );
    const members = page
      .getByRole("table")
      .filter({ has: page.getByRole("columnheader", { name: "From" }) })
      .first();
    for (const column of ["Name", "Type", "Attributes", "From"])
      expect(await members.getByRole("columnheader", { name: column, exact: true }).count(), column).toBe(1);
    // The member's name may be the row's header or its first cell.
    const row = (name: string) =>
      members.getByRole("row").filter({
        has: page.getByRole("rowheader", { name, exact: true }).or(page.getByRole("cell", { name, exact: true })),
      });
    // Declared by account/1.0, which pa/account/1.2 implements: "From" names it (as a link to its
    // page, or its id); the type's own members come from nowhere else.
    const from = row("companyName").getByRole("cell").last();
    const fromLink = from.getByRole("link");
    if ((await fromLink.count()) > 0)
      expect(await fromLink.getAttribute("href")).toBe(`#/types/${encodeURIComponent(ACCOUNT)}`);
    else expect(await from.textContent()).toContain(ACCOUNT);
    expect((await row("techContact").getByRole("cell").last().textContent())?.trim()).toBe("");
    await screenshot(page, "type");
    await expectClean(watched);

    await page.goto(`${base}/console/#/types/${encodeURIComponent(MAILBOX)}`);
    await page.getByRole("heading", { level: 1, name: "Mailbox" }).waitFor();
    const mailboxMembers = page
      .getByRole("table")
      .filter({ has: page.getByRole("columnheader", { name: "From" }) })
      .first();
    const password = mailboxMembers.getByRole("row").filter({
      has: page
        .getByRole("rowheader", { name: "password", exact: true })
        .or(page.getByRole("cell", { name: "password", exact: true })),
    });
    expect(await password.textContent()).toMatch(/encrypted/);
    // The declaration as served, on demand: exact, 64-bit integers included.
    await page.getByText("The type as the controller serves it", { exact: false }).click();
    const declaration = page.locator("pre.declaration");
    await declaration.waitFor();
    const served = (await api("GET", `/aps/2/types/${encodeURIComponent(MAILBOX)}`, { token: adminToken })).text;
    expect(JSON.parse((await declaration.textContent())!)).toEqual(JSON.parse(served));
    expect(await declaration.textContent()).toContain('"default": 9007199254740993');
    await expectClean(watched);
  }, 60_000);

  it("draws the type graph and zooms it with the buttons", async () => {
    const watched = await signedIn();
    const { page } = watched;
    await page.getByRole("navigation").getByRole("link", { name: "Graph" }).click();
    // An image of the graph, or a group when its nodes are links (an image's content is hidden).
    const graph = page.getByRole("img", { name: "Type graph" }).or(page.getByRole("group", { name: "Type graph" }));
    await graph.waitFor();
    expect(await graph.evaluate(tagName)).toBe("svg");
    expect(await graph.textContent()).toContain("Mailbox");
    const viewBox = async () => (await graph.getAttribute("viewBox"))!.split(/[\s,]+/).map(Number);
    const initial = await viewBox();
    expect(initial).toHaveLength(4);
    await page.getByRole("button", { name: "Zoom in" }).click();
    const zoomedIn = await viewBox();
    expect(zoomedIn[2]!).toBeLessThan(initial[2]!);
    await page.getByRole("button", { name: "Zoom out" }).click();
    await page.getByRole("button", { name: "Zoom out" }).click();
    expect((await viewBox())[2]!).toBeGreaterThan(initial[2]!);
    await page.getByRole("button", { name: "Reset zoom" }).click();
    expect(await viewBox()).toEqual(initial);
    await screenshot(page, "graph");
    await expectClean(watched);
  }, 60_000);

  it("filters a resource list with RQL (property names offered), sorts it by a column and keeps the filter in the address", async () => {
    const names = ["alpha.example", "beta.example", "gamma.example"];
    for (const name of names) await domainNamed(name);
    const watched = await signedIn(`#/resources/${encodeURIComponent(DOMAIN)}`);
    const { page } = watched;
    const table = page.getByRole("table");
    const firstCells = table.getByRole("row").locator("td:first-child");
    await until("the domains to be listed", async () => (await table.textContent())?.includes("gamma.example"));
    const filter = page.getByLabel("RQL filter");
    const offered = await filter.evaluate(datalistValues).catch(() => []);
    const listbox = offered.length ? offered : await page.getByRole("option").allTextContents();
    expect(listbox).toEqual(expect.arrayContaining(["name", "catchAll"]));
    await screenshot(page, "resources");
    await expectClean(watched);

    const before = watched.requests.length;
    await filter.fill("eq(name,beta.example)");
    await page.getByRole("button", { name: "Apply" }).click();
    await until(
      "the list to show only beta",
      async () =>
        (await table.textContent())?.includes("beta.example") &&
        !(await table.textContent())?.includes("alpha.example"),
    );
    const listCalls = watched.requests.slice(before).filter((r) => r.includes("/aps/2/resources"));
    expect(listCalls.some((r) => decodeURIComponent(r).includes("eq(name,beta.example)"))).toBe(true);
    expect(decodeURIComponent(page.url())).toContain("q=eq(name,beta.example)");
    // Each row's first cell links to the resource.
    expect(await firstCells.first().getByRole("link").getAttribute("href")).toMatch(/^#\/resource\/[0-9a-f-]{36}$/);

    // A filter the controller refuses is shown as an error, not as an empty list.
    await filter.fill("eq(name");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByRole("alert").first().waitFor();

    // Sorting by name: one header button ascending, again descending.
    await filter.fill("");
    await page.getByRole("button", { name: "Apply" }).click();
    await until("all domains again", async () => (await table.textContent())?.includes("alpha.example"));
    const header = table.getByRole("columnheader").getByRole("button", { name: /^name/ });
    const listed = async () =>
      (await table.getByRole("row").allTextContents())
        .map((t) => names.find((n) => t.includes(n)))
        .filter((n) => n !== undefined);
    await header.click();
    await until("ascending by name", async () => JSON.stringify(await listed()) === JSON.stringify(names));
    await header.click();
    await until(
      "descending by name",
      async () => JSON.stringify(await listed()) === JSON.stringify([...names].reverse()),
    );
    await page.getByRole("button", { name: "Previous" }).waitFor();
    await page.getByRole("button", { name: "Next" }).waitFor();
    await expectClean(watched, [400]);
  }, 90_000);

  it("provisions through the compiled form: a client-side error before anything is sent, then the server's error on its field, then success", async () => {
    const watched = await signedIn(`#/resources/${encodeURIComponent(DOMAIN)}`);
    const { page } = watched;
    await page.getByRole("link", { name: "Provision" }).click();
    expect(new URL(page.url()).hash).toBe(`#/provision/${encodeURIComponent(DOMAIN)}`);
    const name = page.getByLabel("name", { exact: true });
    await name.waitFor();
    await pickTenant(page);
    await screenshot(page, "provision");
    // The picker's provoked failure (500) is the one failed load.
    await expectClean(watched, [500]);

    // The generated validator refuses it in the browser: no request leaves.
    const posts: string[] = [];
    page.on("request", (r) => {
      if (r.method() !== "GET") posts.push(`${r.method()} ${r.url()}`);
    });
    // Required, and left empty.
    await page.getByRole("button", { name: "Provision", exact: true }).click();
    const required = await fieldError(page, "name");
    expect((await required.textContent())?.trim()).not.toBe("");
    // Longer than its declared maxLength (253); formats are not checked anywhere, limits are.
    await name.fill(`${"a".repeat(250)}.example`);
    await page.getByRole("button", { name: "Provision", exact: true }).click();
    await until("the length error", async () =>
      /253/.test((await (await fieldError(page, "name")).textContent()) ?? ""),
    );
    await new Promise((r) => setTimeout(r, 500));
    expect(posts).toEqual([]);

    // The application refuses it: its error lands on the field it names.
    mail.answer = (call) =>
      call.method === "POST" && call.path.startsWith("/domains") && call.body?.name === "taken.example"
        ? {
            status: 400,
            body: {
              code: 400,
              type: "BadRequest",
              error: "BadRequest",
              message: "The domain is taken.",
              details: [{ path: "/name", code: "format", message: "is registered to another customer" }],
            },
          }
        : successOf(call);
    await name.fill("taken.example");
    await page.getByRole("button", { name: "Provision", exact: true }).click();
    await until("the server's error on the field", async () =>
      (await (await fieldError(page, "name")).textContent())?.includes("registered to another customer"),
    );
    expect(posts.filter((p) => p.includes("/aps/2/resources"))).toHaveLength(1);

    const from = mail.calls.length;
    await name.fill("console.example");
    await page.getByRole("button", { name: "Provision", exact: true }).click();
    await until("the new resource's page", async () =>
      UUID.test(
        (await page
          .getByRole("heading", { level: 1 })
          .textContent()
          .catch(() => "")) ?? "",
      ),
    );
    const id = (await page.getByRole("heading", { level: 1 }).textContent())!;
    expect(callsSince(mail, from, (c) => c.method === "POST" && c.path.startsWith("/domains"))).toEqual([
      expect.objectContaining({ body: expect.objectContaining({ name: "console.example" }) }),
    ]);
    const created = (await api("GET", `/aps/2/resources/${id}`, { token: adminToken })).json;
    expect(created.name).toBe("console.example");
    // The tenant chosen in the picker is what the new domain links to.
    expect(created.tenant).toEqual({ aps: expect.objectContaining({ id: ids.tenant }) });
    await expectClean(watched, [400, 500]);
    mail.answer = successOf;
  }, 90_000);

  /**
   * Fills the provision form's tenant through its picker: a list that fails leaves the box empty
   * of suggestions and the form usable; typing asks once it pauses, not per key; a reply for older
   * text is dropped; then part of the tenant's id offers it, labelled, and choosing it puts its id
   * in the box. Headless Chromium draws no datalist popup, so the choice is made as the popup
   * makes it: the chosen option's value becomes the input's value.
   */
  async function pickTenant(page: Page): Promise<void> {
    const tenant = page.getByLabel("tenant", { exact: true });
    const isCandidates = (url: URL) =>
      url.pathname === "/aps/2/resources" && decodeURIComponent(url.search).includes(`implementing(${TENANT})`);
    const asked: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "GET" && isCandidates(new URL(r.url())))
        asked.push(decodeURIComponent(new URL(r.url()).search));
    });
    const offered = () => tenant.evaluate(datalistOptions);

    // The controller fails the list: nothing is offered, and an id can still be typed.
    let failed = 0;
    await page.route(isCandidates, (route) => {
      failed++;
      return route.fulfill({
        status: 500,
        contentType: "application/json",
        body: JSON.stringify({ code: 500, type: "InternalError", message: "The list failed." }),
      });
    });
    await tenant.click();
    await until("the failing list asked for", () => failed > 0);
    expect(await offered()).toEqual([]);
    await page.unroute(isCandidates);

    // Typing a prefix at 50 ms a key asks once it pauses (a few times at most on a busy machine), not per key.
    const prefix = ids.tenant.slice(0, 8);
    let from = asked.length;
    await tenant.pressSequentially(prefix, { delay: 50 });
    await until("the list asked for the prefix", () => asked.some((q) => q.includes(`like(aps.id,${prefix}*)`)));
    expect(asked.length - from).toBeLessThanOrEqual(4);
    await until("the tenant offered", async () => (await offered()).some((o) => o.value === ids.tenant));
    // Only tenants, each labelled with its type (a tenant has no name-ish property).
    for (const o of await offered()) expect(o.label).toBe("tenant/1.0");

    // A reply for text since replaced arrives late with the tenant in it: it is dropped, and
    // what is offered stays the answer for the newer text (nothing: no id starts with "zz").
    let staleServed = false;
    await page.route(
      (url) => isCandidates(url) && decodeURIComponent(url.search).includes("like(aps.id,z*)"),
      async (route) => {
        await new Promise((r) => setTimeout(r, 1_500));
        await route.fulfill({
          status: 200,
          contentType: "application/json",
          headers: { "content-range": "items 0-0/1" },
          body: JSON.stringify([{ aps: { id: ids.tenant, type: TENANT } }]),
        });
        staleServed = true;
      },
    );
    await tenant.fill("z");
    await until("the list asked for z", () => asked.some((q) => q.includes("like(aps.id,z*)")));
    from = asked.length;
    await tenant.fill("zz");
    await until("the list asked for zz", () => asked.slice(from).some((q) => q.includes("like(aps.id,zz*)")));
    await until("nothing offered for zz", async () => (await offered()).length === 0);
    await until("the late reply served", () => staleServed);
    await new Promise((r) => setTimeout(r, 300));
    expect(await offered()).toEqual([]);
    await page.unrouteAll({ behavior: "wait" });

    // Part of the id offers the tenant; choosing it fills in its id.
    await tenant.fill(ids.tenant.slice(0, 5));
    await until("the tenant offered again", async () => (await offered()).some((o) => o.value === ids.tenant));
    await tenant.fill((await offered()).find((o) => o.value === ids.tenant)!.value);
    expect(await tenant.inputValue()).toBe(ids.tenant);
  }

  it("shows a resource's properties, metadata and links both ways; follows a link; configures it; calls its operation; unprovisions it after confirmation", async () => {
    const domain = await domainNamed("links.example");
    const watched = await signedIn(`#/resource/${domain}`);
    const { page } = watched;
    await page.getByRole("heading", { level: 1, name: domain }).waitFor();
    expect(await section(page, "Properties").textContent()).toContain("links.example");
    expect(await section(page, "Metadata").textContent()).toContain("aps:ready");
    await screenshot(page, "resource");
    await expectClean(watched);

    // Follow the link to the tenant; the tenant's page links back.
    await section(page, "Links").locator(`a[href="#/resource/${ids.tenant}"]`).first().click();
    await page.getByRole("heading", { level: 1, name: ids.tenant }).waitFor();
    await section(page, "Links").locator(`a[href="#/resource/${domain}"]`).first().waitFor();
    await page.goBack();
    await page.getByRole("heading", { level: 1, name: domain }).waitFor();

    // Configure.
    let from = mail.calls.length;
    await page.getByRole("button", { name: "Configure" }).click();
    await page.getByLabel("catchAll", { exact: true }).fill("postmaster@links.example");
    await page.getByRole("button", { name: "Save" }).click();
    await until(
      "the configure call",
      () => callsSince(mail, from, (c) => c.method === "PUT" && c.path === `/domains/${domain}`).length === 1,
    );
    expect(callsSince(mail, from, (c) => c.method === "PUT")[0]!.body).toMatchObject({
      catchAll: "postmaster@links.example",
    });
    await until("the new value on the page", async () =>
      (await section(page, "Properties").textContent())?.includes("postmaster@links.example"),
    );
    expect((await api("GET", `/aps/2/resources/${domain}`, { token: adminToken })).json.catchAll).toBe(
      "postmaster@links.example",
    );

    // A custom operation, answered by the application.
    mail.answer = (call) =>
      call.path === `/domains/${domain}/verifyDns`
        ? {
            status: 200,
            body: { verified: false, missing: [{ kind: "MX", host: "links.example", value: "mx.cloudmail.example" }] },
          }
        : successOf(call);
    from = mail.calls.length;
    await page.getByRole("button", { name: "verifyDns" }).click();
    const call = page.getByRole("button", { name: "Call" });
    if (await call.isVisible().catch(() => false)) await call.click();
    await until("the operation's answer on the page", async () =>
      (await page.textContent("body"))?.includes("mx.cloudmail.example"),
    );
    expect(
      callsSince(mail, from, (c) => c.method === "POST" && c.path === `/domains/${domain}/verifyDns`),
    ).toHaveLength(1);
    mail.answer = successOf;

    // Unprovision: nothing happens until the dialog's button confirms it.
    from = mail.calls.length;
    await page.getByRole("button", { name: "Unprovision" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.waitFor();
    expect(callsSince(mail, from, (c) => c.method === "DELETE")).toEqual([]);
    await screenshot(page, "unprovision");
    await dialog.getByRole("button", { name: "Unprovision" }).click();
    await until(
      "the delete call",
      () => callsSince(mail, from, (c) => c.method === "DELETE" && c.path === `/domains/${domain}`).length === 1,
    );
    await until(
      "the resource to be gone",
      async () => (await api("GET", `/aps/2/resources/${domain}`, { token: adminToken })).status === 404,
    );
    await expectClean(watched, [404]);
  }, 90_000);

  it("uploads a package with progress, shows its types, and refuses a broken one with the controller's message", async () => {
    const watched = await signedIn();
    const { page } = watched;
    await page.getByRole("navigation").getByRole("link", { name: "Applications" }).click();
    const file = page.getByLabel("Package file");
    await file.waitFor({ state: "attached" });
    await screenshot(page, "applications");
    await expectClean(watched);

    await file.setInputFiles({
      name: "broken.app.zip",
      mimeType: "application/zip",
      buffer: Buffer.from("not a zip at all"),
    });
    await page.getByRole("button", { name: "Upload" }).click();
    await page.getByRole("alert").first().waitFor();

    const archive = zipFolder(join(repoRoot, "test/fixtures/upgrade/v2"));
    await file.setInputFiles({ name: "upgrade-v2.app.zip", mimeType: "application/zip", buffer: Buffer.from(archive) });
    const sawProgress = page.waitForSelector("progress", { state: "attached", timeout: 10_000 }).then(
      () => true,
      () => false,
    );
    await page.getByRole("button", { name: "Upload" }).click();
    await page.getByText("Upgrade Example").first().waitFor();
    expect(await sawProgress).toBe(true);
    const packages = (await api("GET", "/aps/2/packages", { token: adminToken })).json as {
      name: string;
      origin: string;
    }[];
    expect(packages.filter((p) => p.name === "Upgrade Example")).toEqual([
      expect.objectContaining({ origin: "imported" }),
    ]);
    await until("its types on the page", async () =>
      (await page.textContent("body"))?.includes("http://upgrade.example/types/app/1.1"),
    );
    await expectClean(watched, [400]);
  }, 90_000);

  it("installs an instance from the form compiled from the root type's settings", async () => {
    if (
      !((await api("GET", "/aps/2/packages", { token: adminToken })).json as { name: string }[]).some(
        (p) => p.name === "Upgrade Example",
      )
    ) {
      const imported = await api("POST", "/aps/2/packages", {
        token: adminToken,
        rawBody: zipFolder(join(repoRoot, "test/fixtures/upgrade/v2")),
        headers: { "content-type": "application/zip" },
      });
      expect(imported.status, imported.text).toBe(201);
    }
    const endpoint = await startFakeApplication(join(dir, "upgrade"));
    try {
      const watched = await signedIn("#/applications");
      const { page } = watched;
      await page
        .getByRole("row")
        .filter({ hasText: "Upgrade Example" })
        .getByRole("button", { name: "Install" })
        .click();
      const region = page.getByLabel("region", { exact: true });
      await region.waitFor();
      await screenshot(page, "install");
      // A required setting left out is refused in the browser.
      await page.getByLabel("Endpoint URL").fill(endpoint.url);
      await page.getByLabel("Endpoint CA certificate").fill(endpoint.ca);
      await region.selectOption("eu");
      await page.getByLabel("apiToken", { exact: true }).fill("upgrade-token-0123456789");
      const form = page.locator("form").filter({ has: page.getByLabel("Endpoint URL") });
      await form.getByRole("button", { name: "Install" }).click();
      await (await fieldError(page, "apiUrl")).waitFor();
      expect(endpoint.calls).toEqual([]);
      await page.getByLabel("apiUrl", { exact: true }).fill("https://api.upgrade.example");
      await form.getByRole("button", { name: "Install" }).click();
      await until("the install call", () =>
        endpoint.calls.some((c) => c.method === "POST" && c.path.startsWith("/app")),
      );
      expect(endpoint.calls.find((c) => c.method === "POST")!.body).toMatchObject({
        apiUrl: "https://api.upgrade.example",
        region: "eu",
      });
      const instances = (await api("GET", "/aps/2/instances", { token: adminToken })).json as { endpoint: string }[];
      expect(instances.map((i) => i.endpoint)).toContain(endpoint.url);
      const instanceRow = page.getByRole("row").filter({ hasText: endpoint.url });
      await instanceRow.waitFor();
      await instanceRow.getByRole("button", { name: "Re-issue certificate" }).waitFor();
      // When the certificate the controller issued it expires (825 days from now), as the instances API says.
      const listed = (instances as unknown as { endpoint: string; certificate?: { notAfter: string } }[]).find(
        (i) => i.endpoint === endpoint.url,
      )!;
      expect(listed.certificate?.notAfter).toBeDefined();
      await instanceRow.getByText(`expires ${listed.certificate!.notAfter.slice(0, 10)}`).waitFor();
      // The controller reaches the endpoint when asked, and says how it answered.
      await instanceRow.getByRole("button", { name: "Check endpoint" }).click();
      await instanceRow.getByText(/^reachable: answered \d{3} in [\d.]+ ms$/).waitFor();
      await expectClean(watched);
    } finally {
      await endpoint.close();
    }
  }, 90_000);

  it("shows each call forwarded to an application in the live log, with its body on demand, secrets masked", async () => {
    const watched = await signedIn("#/activity");
    const { page } = watched;
    const log = page.getByRole("log");
    await log.waitFor();
    const domain = await domainNamed("live.example");
    const password = "live-secret-password-42";
    const mailbox = await provisionAsOwner({
      aps: { type: MAILBOX },
      localPart: "live",
      password,
      tenant: { aps: { id: ids.tenant } },
      domain: { aps: { id: domain } },
    });
    const entries = log.getByRole("row").filter({ hasText: "/mailboxes" }).filter({ hasText: "POST" });
    await entries.first().waitFor();
    await showBodiesUntil(entries, "the body on the page", async () => (await log.textContent())?.includes(mailbox));
    // The call's row, just above the body that names the mailbox, says how the application answered.
    const entry = log.locator("tr", { hasText: mailbox }).first().locator("xpath=preceding-sibling::tr[1]");
    expect(await entry.textContent()).toMatch(/POST.*\/mailboxes.*201/);
    const text = (await log.textContent()) ?? "";
    expect(text).toContain("••••");
    expect(text).not.toContain(password);
    expect(await page.textContent("body")).not.toContain(adminToken);
    await screenshot(page, "activity");
    await expectClean(watched);
  }, 90_000);

  it("retries a failed task from the Tasks section", async () => {
    // Accepted (202), then refused when the controller asks again: the task fails.
    let refuse = true;
    mail.answer = (call) => {
      if (call.method === "POST" && call.path.startsWith("/domains") && call.body?.name === "retry.example") {
        if (call.headers["aps-request-phase"] !== "async")
          return { status: 202, body: {}, headers: { "aps-info": "creating the zone", "aps-retry-timeout": "1" } };
        if (refuse)
          return {
            status: 500,
            body: { code: 500, type: "ServerError", error: "ServerError", message: "the zone could not be created" },
          };
      }
      return successOf(call);
    };
    const domain = await domainNamed("retry.example");
    const failed = await until(
      "a failed task",
      async () =>
        (
          (await api("GET", "/aps/2/tasks", { token: adminToken })).json as {
            id: string;
            resource: string;
            state: string;
          }[]
        ).find((t) => t.resource === domain && t.state === "failed"),
      30_000,
    );
    refuse = false;
    const watched = await signedIn("#/activity");
    const { page } = watched;
    const row = section(page, "Tasks").getByRole("row").filter({ hasText: domain });
    await row.getByRole("button", { name: "Retry" }).click();
    // The list is read again: the task is pending or done now, with nothing to retry.
    await until("the Retry button gone", async () => (await row.getByRole("button", { name: "Retry" }).count()) === 0);
    await until(
      "the task done",
      async () =>
        ((await api("GET", "/aps/2/tasks", { token: adminToken })).json as { id: string; state: string }[]).find(
          (t) => t.id === failed.id,
        )?.state === "done",
      30_000,
    );
    expect(watched.requests).toContain(`POST ${base}/aps/2/tasks/${failed.id}/retry`);
    await until(
      "the resource ready",
      async () =>
        (await api("GET", `/aps/2/resources/${domain}`, { token: adminToken })).json.aps.status === "aps:ready",
    );
    await expectClean(watched);
    mail.answer = successOf;
  }, 90_000);

  it("replays a dead letter from the Dead letters section", async () => {
    const domain = await domainNamed("dead.example");
    const mailbox = await provisionAsOwner({
      aps: { type: MAILBOX },
      localPart: "dead",
      password: "dead-letter-pass-1",
      tenant: { aps: { id: ids.tenant } },
      domain: { aps: { id: domain } },
    });
    const subscribed = await api("POST", `/aps/2/resources/${ids.tenant}/aps/subscriptions`, {
      token: adminToken,
      body: { event: CHANGED, source: { id: mailbox }, handler: "onMailboxChanged" },
    });
    expect(subscribed.status, subscribed.text).toBeLessThan(300);
    let refuse = true;
    mail.answer = (call) =>
      refuse && call.path.endsWith("/onMailboxChanged")
        ? {
            status: 500,
            body: { code: 500, type: "ServerError", error: "ServerError", message: "the handler is down" },
          }
        : successOf(call);
    expect(
      (await api("PUT", `/aps/2/resources/${mailbox}`, { token: ownerToken, body: { displayName: "Dead letter" } }))
        .status,
    ).toBe(200);
    const dead = await until(
      "a dead notification",
      async () =>
        (
          (await api("GET", "/aps/2/events/dead", { token: adminToken })).json as {
            id: number;
            source: { id: string };
          }[]
        ).find((n) => n.source.id === mailbox),
      30_000,
    );
    refuse = false;
    const from = mail.calls.length;
    const watched = await signedIn("#/activity");
    const { page } = watched;
    // The subscription is listed with its subscriber, among every subscription the controller holds.
    const subscription = section(page, "Subscriptions").getByRole("row").filter({ hasText: mailbox });
    await subscription.waitFor();
    expect(await subscription.textContent()).toContain(ids.tenant);
    expect(await subscription.textContent()).toContain("onMailboxChanged");
    const row = section(page, "Dead letters").getByRole("row").filter({ hasText: mailbox });
    await row.getByRole("button", { name: "Replay" }).click();
    await until(
      "the notification delivered again",
      () => callsSince(mail, from, (c) => c.path === `/tenants/${ids.tenant}/onMailboxChanged`).length > 0,
      30_000,
    );
    await until(
      "the dead-letter list empty of it",
      async () =>
        !((await api("GET", "/aps/2/events/dead", { token: adminToken })).json as { id: number }[]).some(
          (n) => n.id === dead.id,
        ),
    );
    await until("the row gone", async () => (await row.count()) === 0);
    await expectClean(watched);
    mail.answer = successOf;
  }, 90_000);

  it("renders hostile values as text: nothing they hold runs, no CSP violation is even provoked", async () => {
    const domain = await domainNamed("hostile.example");
    const mailbox = await provisionAsOwner({
      aps: { type: MAILBOX },
      localPart: "hostile",
      password: "hostile-password-1",
      displayName: HOSTILE.img,
      aliases: [HOSTILE.link, HOSTILE.svg],
      clientSettings: { [HOSTILE.img]: HOSTILE.link, href: HOSTILE.link },
      tenant: { aps: { id: ids.tenant } },
      domain: { aps: { id: domain } },
    });
    // Only the provider's staff may write the support note.
    const note = await api("PUT", `/aps/2/resources/${mailbox}`, {
      token: adminToken,
      body: { supportNote: HOSTILE.script },
    });
    expect(note.status, note.text).toBe(200);
    const pages = [
      "#/activity",
      `#/resource/${mailbox}`,
      `#/resources/${encodeURIComponent(MAILBOX)}`,
      `#/resources/${encodeURIComponent(MAILBOX)}?q=${encodeURIComponent(`eq(displayName,${HOSTILE.img})`)}`,
      `#/resource/${encodeURIComponent(HOSTILE.svg)}`,
      `#/types/${encodeURIComponent(HOSTILE.img)}`,
      // The link picker offers the mailbox labelled with its display name.
      `#/provision/${encodeURIComponent(DOMAIN)}`,
    ];
    for (const route of pages) {
      const watched = await signedIn(route);
      const { page } = watched;
      if (route === "#/activity") {
        // The live log holds the provisioning call with the values in its body: shown on demand, as text.
        // Every provisioning of a mailbox (the log's order is the console's to choose).
        const entries = page.getByRole("log").getByRole("row").filter({ hasText: "/mailboxes" });
        await entries.first().waitFor();
        await showBodiesUntil(entries, "the hostile body shown", async () =>
          (await page.getByRole("log").textContent())?.includes(HOSTILE.img),
        );
      } else if (route.startsWith("#/provision/")) {
        await page.getByRole("button", { name: "Add mailboxes item" }).click();
        const picker = page.getByLabel("mailboxes 1", { exact: true });
        // Typed text with markup in it is a value to match, and finds the mailbox by its display name.
        await picker.pressSequentially(HOSTILE.img.slice(0, 8));
        await until("the hostile mailbox offered, its name as text", async () =>
          (await picker.evaluate(datalistOptions)).some(
            (o) => o.value === mailbox && o.label === `mailbox/1.0 · ${HOSTILE.img}`,
          ),
        );
      } else await page.waitForLoadState("networkidle");
      if (route === pages[1]) {
        for (const text of [HOSTILE.img, HOSTILE.script, HOSTILE.link, HOSTILE.svg])
          await page.getByText(text, { exact: false }).first().waitFor();
        await screenshot(page, "hostile");
      }
      expect(await page.evaluate("window.__pwned"), route).toBeUndefined();
      // Nothing of the values became markup: no inline script, handler attribute, frame or script link.
      expect(
        await page.evaluate(
          "document.querySelectorAll('script:not([src]), [onerror], [onload], [onclick], iframe, object, embed, svg [onload]').length",
        ),
        route,
      ).toBe(0);
      expect(
        await page.evaluate(
          "[...document.querySelectorAll('a[href], [src]')].map((e) => e.getAttribute('href') ?? e.getAttribute('src')).filter((u) => /^\\s*javascript:/i.test(u)).length",
        ),
        route,
      ).toBe(0);
      expect(watched.cspViolations, route).toEqual([]);
      expect(watched.pageErrors, route).toEqual([]);
    }
  }, 120_000);

  it("signed in with a customer's token, shows what that token sees: its own resources, and the administrators' pages refused with the controller's reason", async () => {
    const accounts = await api("GET", `/aps/2/resources?implementing(${ACCOUNT})`, { token: adminToken });
    const others = (accounts.json as { aps: { id: string } }[]).map((a) => a.aps.id).filter((id) => id !== ids.account);
    expect(others.length, "the administrator sees another account than the customer's").toBeGreaterThan(0);

    const listed = await signedIn(`#/resources/${encodeURIComponent(ACCOUNT)}`, ownerToken);
    const table = listed.page.getByRole("table");
    await until("the customer's own account listed", async () => (await table.textContent())?.includes(ids.account));
    for (const id of others) expect(await table.textContent()).not.toContain(id);
    await expectClean(listed);

    const activity = await signedIn("#/activity", ownerToken);
    // Each administrators' list shows the controller's refusal, as text in an alert, and nothing of the lists.
    await until("the refusals shown", async () => (await activity.page.getByRole("alert").count()) >= 4);
    const alerts = await activity.page.getByRole("alert").allTextContents();
    expect(
      alerts.filter((text) => text.includes("Only the provider's administrators may")).length,
    ).toBeGreaterThanOrEqual(4);
    expect(await activity.page.locator("table.subscriptions, table.notifications").count()).toBe(0);
    await expectClean(activity, [403]);
  }, 60_000);
});

// Run in the page (the test's tsconfig has no DOM types: elements are `any` here).
/**
 * Opens the body of every row of `rows` not yet open until `shown` holds: the live log's stream
 * delivers its rows one at a time, so the row sought may come after the first ones are opened.
 */
async function showBodiesUntil(rows: Locator, what: string, shown: () => Promise<boolean | undefined>): Promise<void> {
  await until(what, async () => {
    for (const row of await rows.all()) {
      const show = row.getByRole("button", { name: "Show body" });
      if ((await show.count()) > 0) await show.click();
    }
    return shown();
  });
}

const isFocused = (el: any): boolean => el === el.ownerDocument.activeElement;
const tagName = (el: any): string => String(el.tagName).toLowerCase();
const datalistValues = (el: any): string[] => (el.list ? [...el.list.options].map((o: any) => String(o.value)) : []);
const datalistOptions = (el: any): { value: string; label: string }[] =>
  el.list ? [...el.list.options].map((o: any) => ({ value: String(o.value), label: String(o.label) })) : [];
