/** What the controller's middleware puts on each request's context. */
import type { Caller } from "./auth/caller.ts";
import type { RequestScope } from "./observability/request-scope.ts";

/** Hono environment of the controller app. */
export interface ControllerEnv {
  Variables: {
    caller: Caller;
    /** The request's id, logger and transaction, for what it forwards (observability/request-scope.ts). */
    request: RequestScope;
  };
}
