/**
 * The body of an install as `/aps/2/instances` takes it (and `/aps/2/applications` builds it,
 * platform-install.ts): checked member by member, each refusal saying what to send instead.
 */
import type { InstallRequest } from "../../common/instance-info.ts";
import { ControllerError } from "../support/errors.ts";

export function parseInstall(body: unknown): InstallRequest {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new ControllerError(
      400,
      'Send {"package": "<package id>", "endpoint": "https://..."} to install an instance.',
    );
  const b = body as Record<string, unknown>;
  if (typeof b.package !== "string") throw new ControllerError(400, '"package" must name an imported package by id.');
  const oauth = parseOAuth(b.auth);
  if (
    typeof b.endpoint !== "string" ||
    !(/^https:\/\/[^\s/]+/.test(b.endpoint) || (oauth && isLoopbackHttp(b.endpoint)))
  )
    throw new ControllerError(
      400,
      `"endpoint" must be the https:// URL of the application endpoint${oauth ? " (plain http:// only on this machine: 127.0.0.1, ::1 or localhost)" : ""}.`,
    );
  if (b.endpointCa !== undefined && (typeof b.endpointCa !== "string" || !b.endpointCa.includes("BEGIN CERTIFICATE")))
    throw new ControllerError(400, '"endpointCa" must be a PEM certificate.');
  if (b.settings !== undefined && (typeof b.settings !== "object" || b.settings === null || Array.isArray(b.settings)))
    throw new ControllerError(400, '"settings" must be an object of the root resource\'s properties.');
  return {
    package: b.package,
    endpoint: b.endpoint.replace(/\/$/, ""),
    ...(typeof b.endpointCa === "string" ? { endpointCa: b.endpointCa } : {}),
    ...(b.settings ? { settings: b.settings as Record<string, unknown> } : {}),
    ...(oauth ? { auth: { oauth } } : {}),
  };
}

/** `auth: {oauth: {key, secret}}`, as apsconnect-cli sends it under `aps.auth` (platform-forms §1.1). */
function parseOAuth(auth: unknown): NonNullable<InstallRequest["auth"]>["oauth"] | undefined {
  if (auth === undefined || auth === null) return undefined;
  const oauth = typeof auth === "object" && !Array.isArray(auth) ? (auth as Record<string, unknown>).oauth : undefined;
  const { key, secret } = (typeof oauth === "object" && oauth !== null ? oauth : {}) as Record<string, unknown>;
  const printable = (v: unknown, max: number): v is string =>
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a key or secret with a control character in it is refused.
    typeof v === "string" && v.length > 0 && v.length <= max && !/[\u0000-\u001f\u007f]/.test(v);
  if (!printable(key, 200) || !printable(secret, 1000))
    throw new ControllerError(
      400,
      '"auth" must be {"oauth": {"key": "<consumer key, 1-200 characters>", "secret": "<consumer secret, 1-1000 characters>"}}.',
    );
  return { key, secret };
}

/**
 * An http:// URL of this machine. The platform talks to endpoints over HTTPS (docs/aps/security.md,
 * "Application credentials"); OAuth authenticates the calls without TLS, but the bodies (the
 * install's private key, encrypted properties) would cross the network readable, so plain http is
 * for an endpoint on the same host only (a connector such as FallBall's Flask app run locally).
 */
function isLoopbackHttp(endpoint: string): boolean {
  if (!/^http:\/\//i.test(endpoint)) return false;
  try {
    const host = new URL(endpoint).hostname;
    return host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}
