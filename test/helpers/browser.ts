/**
 * A real browser for the console's tests: Debian's Chromium (`apt-get install -y chromium`,
 * which .ci/run does) driven through playwright-core, which brings no browser of its own.
 *
 * TLS: the controller's certificate is issued by the CA in its data folder. Chromium on Linux
 * trusts what its NSS database holds, and filling one needs `certutil` (libnss3-tools), which
 * is not installed here. Instead the browser is told to accept the public keys of the
 * certificates it is given, and no other untrusted one (`--ignore-certificate-errors-spki-list`:
 * SHA-256 of the SubjectPublicKeyInfo, base64; Chromium honours it with a `--user-data-dir` of
 * its own, which Playwright gives it). Give it the controller's own certificate
 * (`<data>/tls/server.crt`): the CA's key alone does not do, as the controller sends its
 * certificate without the CA's and the keys matched are those of the chain the server sent.
 * `ignoreHTTPSErrors` is not used: a page that loaded anything from elsewhere over TLS would still
 * fail, as it would for a user.
 *
 * Every page is watched: console errors, uncaught exceptions and Content-Security-Policy
 * violations (the `securitypolicyviolation` events the document fires, passed out through an
 * exposed function), so a test can assert there were none.
 */
import { createHash, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { repoRoot } from "./paths.ts";

/** Where Debian's package puts the browser (a shell wrapper around /usr/lib/chromium/chromium). */
const CHROMIUM = "/usr/bin/chromium";

const require = createRequire(import.meta.url);

/** Why the browser tests cannot run here, or undefined when they can. */
export function browserSkipReason(): string | undefined {
  if (!existsSync(CHROMIUM)) return `${CHROMIUM} is not installed (apt-get install -y chromium; .ci/run does it)`;
  try {
    require.resolve("playwright-core");
  } catch {
    return "playwright-core is not installed (a devDependency: npm ci installs it)";
  }
  return undefined;
}

/** The base64 SHA-256 of a certificate's SubjectPublicKeyInfo, as Chromium's SPKI list takes it. */
function spkiHash(pem: string): string {
  const der = new X509Certificate(pem).publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(der).digest("base64");
}

/** Chromium, accepting the certificates (PEM) in `trusted` and the chains they issue. */
export async function launchChromium(trusted: readonly string[]): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  const spki = trusted.map(spkiHash).join(",");
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", `--ignore-certificate-errors-spki-list=${spki}`],
  });
}

/** A `securitypolicyviolation` event as the page saw it. */
interface CspViolation {
  readonly directive: string;
  readonly blockedURI: string;
  readonly sample: string;
  readonly disposition: string;
}

/** A page and what went wrong in it. */
export interface WatchedPage {
  readonly page: Page;
  /** `console.error` messages, and the browser's own errors (a refused script, a failed load). */
  readonly consoleErrors: string[];
  /** Exceptions nothing caught. */
  readonly pageErrors: string[];
  readonly cspViolations: CspViolation[];
  /** Every request the page made, as "METHOD url". */
  readonly requests: string[];
}

/** The name the page calls to report a violation; unlikely to meet anything of the console's. */
const REPORT = "__consoleTestCspViolation";

/** A new page in `context` with its console, exceptions, CSP violations and requests recorded. */
export async function watchedPage(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const watched: WatchedPage = { page, consoleErrors: [], pageErrors: [], cspViolations: [], requests: [] };
  page.on("console", (message) => {
    // With the address: a failed load's message does not say what failed.
    if (message.type() === "error") watched.consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => watched.pageErrors.push(error.message));
  page.on("request", (request) => watched.requests.push(`${request.method()} ${request.url()}`));
  await page.exposeFunction(REPORT, (violation: CspViolation) => void watched.cspViolations.push(violation));
  // Runs before the page's own scripts, in every document of the page; the console's CSP does
  // not apply to it (the browser injects it, not the page).
  await page.addInitScript(
    `document.addEventListener("securitypolicyviolation", (e) => window.${REPORT}({ directive: e.effectiveDirective, blockedURI: e.blockedURI, sample: e.sample, disposition: e.disposition }));`,
  );
  return watched;
}

/** Impacts axe-core rates; the console must have none of the two worst. */
const BLOCKING_IMPACTS = new Set(["serious", "critical"]);

/**
 * axe-core's serious and critical violations on the page as it is now, one line each
 * ("color-contrast (serious): Elements must meet minimum color contrast ratio: button.x").
 * axe is evaluated through the DevTools protocol, which the page's CSP does not govern (a
 * `<script>` tag with its text would be refused by `script-src 'self'`, as it should be).
 */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  const injected = await page.evaluate("typeof window.axe === 'object'");
  if (!injected) await page.evaluate(readFileSync(require.resolve("axe-core/axe.min.js"), "utf8"));
  const violations = (await page.evaluate(
    "window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) })))",
  )) as { id: string; impact: string | null; help: string; targets: string[] }[];
  return violations
    .filter((v) => v.impact !== null && BLOCKING_IMPACTS.has(v.impact))
    .map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.targets.join(", ")}`);
}

/** Whether this run writes screenshots into docs/console/ (`CONSOLE_SCREENSHOTS=1`); CI leaves the tree as it is. */
const writeScreenshots = process.env.CONSOLE_SCREENSHOTS === "1";

/** A screenshot of the page as docs/console/<name>.png, when {@link writeScreenshots} is set. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!writeScreenshots) return;
  const dir = join(repoRoot, "docs/console");
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
