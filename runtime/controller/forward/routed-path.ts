/**
 * One call, two ways of writing its path: real connectors and the APS documents do not always
 * route a call at the same path (a trailing slash on provisioning, forward/provision-path.ts;
 * where an event handler is served, events/handler-path.ts). The controller sends to each form in
 * turn until one is routed, and passes on what that one answered.
 *
 * A form is "not routed" when the endpoint answers 404 or 405 (nothing here, or not for this
 * method) or redirects (301, 302, 307, 308): web frameworks redirect to the other form of a
 * trailing slash instead of serving it (Flask/Werkzeug for a rule written with a slash,
 * https://flask.palletsprojects.com/en/stable/quickstart/#unique-urls-redirection-behavior;
 * Starlette's `Router.redirect_slashes`, on by default in FastAPI, encode/starlette
 * `starlette/routing.py`), and the controller follows no redirect. None of these answers means
 * the endpoint acted on the call, so sending it to the next form is safe even for a POST; any
 * other answer (a success, a 202, another 4xx, a 5xx, no answer) is final, as the endpoint may
 * have acted on it.
 */
import type { EndpointReply } from "./endpoint-client.ts";

/** 404 or 405: nothing is routed at this path (for this method). */
function isNoRoute(status: number): boolean {
  return status === 404 || status === 405;
}

/** A redirect, which the controller never follows: the endpoint routes another form of the path. */
function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 307 || status === 308;
}

/** The answer kept, the path it came from, and whether that path is routed at the endpoint. */
export interface RoutedReply {
  readonly reply: EndpointReply;
  readonly path: string;
  readonly routed: boolean;
}

/**
 * Sends to `paths` in order until one is routed. When none is, the reply kept is that of the
 * attempt that speaks for the endpoint: `answerFrom` says whether the first or the last attempt
 * does (a redirect never does while another attempt answered otherwise).
 */
export async function sendToRouted(
  paths: readonly string[],
  send: (path: string) => Promise<EndpointReply>,
  answerFrom: "first" | "last",
): Promise<RoutedReply> {
  const unrouted: { reply: EndpointReply; path: string }[] = [];
  for (const path of paths) {
    const reply = await send(path);
    if (!isNoRoute(reply.status) && !isRedirect(reply.status)) return { reply, path, routed: true };
    unrouted.push({ reply, path });
  }
  const ordered = answerFrom === "first" ? unrouted : unrouted.reverse();
  return { ...(ordered.find((a) => !isRedirect(a.reply.status)) ?? ordered[0]!), routed: false };
}
