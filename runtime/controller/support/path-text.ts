/**
 * Percent-decoding of the parts of a request path the routes read themselves (a type id, a
 * package file path). `decodeURIComponent` throws `URIError` on a malformed escape such as
 * `%E0%A4%A`; that is the caller's mistake, so it is a 400, not an unexpected error.
 */
import { ControllerError } from "./errors.ts";

/** `text` percent-decoded; throws ControllerError(400) naming `what` when an escape is malformed. */
export function decodePathText(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ControllerError(
      400,
      `The ${what} in the path has a malformed %-escape: ${JSON.stringify(text.slice(0, 200))}.`,
    );
  }
}
