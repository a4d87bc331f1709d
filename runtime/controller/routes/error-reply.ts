/**
 * What the controller answers when a route throws: a ControllerError as its body, an
 * application's own error reply as it came, a race with an account's deletion as 401, a
 * statement time-out as 503, a database that cannot be reached as 503 with `Retry-After`
 * (store/database-unavailable.ts), and anything else as a 500 whose details stay in the log.
 */
import type { Context } from "hono";
import type { Logger } from "pino";
import type { ControllerEnv } from "../context.ts";
import { ApplicationReplyError } from "../forward/forwarder.ts";
import { databaseUnavailableError, isDatabaseUnavailable } from "../store/database-unavailable.ts";
import { isOwnerAccountGone } from "../store/owner-account-error.ts";
import { isStatementTimeout } from "../store/statement-timeout.ts";
import { ControllerError } from "../support/errors.ts";
import { sendJson } from "../support/http-json.ts";
import { loggableError } from "../support/loggable-error.ts";

export function errorReply(logger: Logger): (error: Error, c: Context<ControllerEnv>) => Response {
  return (error, c) => {
    if (error instanceof ControllerError) return sendJson(c, error.toBody(), error.status, error.headers);
    if (error instanceof ApplicationReplyError) {
      // An application's own error reply goes back to the caller with its status
      // (docs/aps/rest-api.md, "Errors").
      const type = error.reply.headers["content-type"];
      return new Response(error.reply.body, {
        status: error.reply.status,
        headers: typeof type === "string" ? { "content-type": type } : {},
      });
    }
    if (isOwnerAccountGone(error)) {
      // A provisioning that raced the delete of its account (the revocation feed had not told this process yet).
      return sendJson(
        c,
        new ControllerError(401, "The account this APS-Token names no longer exists; nothing was stored.").toBody(),
        401,
      );
    }
    if (isStatementTimeout(error)) {
      (c.get("request")?.log ?? logger).warn(
        { method: c.req.method, path: new URL(c.req.url).pathname },
        "statement time-out",
      );
      return sendJson(
        c,
        new ControllerError(
          503,
          "The database did not finish this request within the statement time-out; narrow the query (a filter, limit(...)) or try again later.",
        ).toBody(),
        503,
      );
    }
    if (isDatabaseUnavailable(error)) {
      // No line of its own per request (its request line says 503): during an outage every
      // request would log one. The background loops and /readyz say once that it is gone and
      // once that it is back (observability/database-outage-log.ts).
      const answer = databaseUnavailableError();
      return sendJson(c, answer.toBody(), 503, answer.headers);
    }
    // Never error.message or stack as they are: a database error quotes the statement's parameters (a whole body).
    (c.get("request")?.log ?? logger).error(
      { method: c.req.method, path: new URL(c.req.url).pathname, error: loggableError(error) },
      "unexpected error",
    );
    return sendJson(
      c,
      new ControllerError(500, "The controller failed to handle this request; the error is in its log.").toBody(),
      500,
    );
  };
}
