/**
 * The body of `POST .../notifications` on the notification manager, checked: what FallBall sends
 * (connector/v1/resources/__init__.py:108-136): `status`, `message {message, keys?}`, and optionally
 * `details {message, keys?}`, `accountId`, `userId`, `link`, `initiatorId`. The structure is
 * declared in types/core/notification-manager.schema; its README row says which parts are ours.
 */
import { invalidBody } from "../support/errors.ts";
import { pointerSegment, typeError, type ValidationError } from "../../common/validation-error.ts";
import { unknownKey } from "../../common/validation-rules.ts";

/** The statuses accepted: `ready` is FallBall's; the platform's pages we could read list none (types/core/README.md). */
const NOTIFICATION_STATUSES = ["inProgress", "ready", "error"] as const;

interface LocalizedMessage {
  readonly message: string;
  readonly keys?: Readonly<Record<string, unknown>>;
}

/** A notification as sent, checked. */
export interface NotificationInput {
  readonly status: (typeof NOTIFICATION_STATUSES)[number];
  readonly message: LocalizedMessage;
  readonly details?: LocalizedMessage;
  readonly accountId?: string;
  readonly userId?: string;
  readonly link?: string;
  readonly initiatorId?: string;
}

const STRING_MEMBERS = ["accountId", "userId", "link", "initiatorId"] as const;
const KNOWN = ["status", "message", "details", ...STRING_MEMBERS];

/** The notification in `body`; ControllerError(400) listing every problem otherwise. */
export function readNotification(body: unknown): NotificationInput {
  if (!isObject(body)) throw invalidBody([typeError("", "an object", body)], "The notification");
  const errors: ValidationError[] = [];
  for (const key of Object.keys(body))
    if (!KNOWN.includes(key))
      errors.push(
        unknownKey(`/${pointerSegment(key)}`, key, `is not a member of a notification; known: ${KNOWN.join(", ")}`),
      );
  const status = body.status;
  if (status === undefined || status === null)
    errors.push({
      path: "/status",
      code: "required",
      message: `is required: one of ${NOTIFICATION_STATUSES.join(", ")}`,
    });
  else if (typeof status !== "string") errors.push(typeError("/status", "a string", status));
  else if (!(NOTIFICATION_STATUSES as readonly string[]).includes(status))
    errors.push({
      path: "/status",
      code: "enum",
      message: `must be one of ${NOTIFICATION_STATUSES.join(", ")}, not ${JSON.stringify(status)}`,
    });
  if (body.message === undefined || body.message === null)
    errors.push({ path: "/message", code: "required", message: 'is required: {"message": "<text>"}' });
  else checkMessage(body.message, "/message", errors);
  if (body.details !== undefined && body.details !== null) checkMessage(body.details, "/details", errors);
  for (const key of STRING_MEMBERS)
    if (body[key] !== undefined && body[key] !== null && typeof body[key] !== "string")
      errors.push(typeError(`/${key}`, "a string", body[key]));
  if (errors.length) throw invalidBody(errors, "The notification");
  return withoutNulls(body) as unknown as NotificationInput;
}

function checkMessage(value: unknown, path: string, errors: ValidationError[]): void {
  if (!isObject(value)) {
    errors.push(typeError(path, 'an object {"message": "<text>", "keys": {...}}', value));
    return;
  }
  for (const key of Object.keys(value))
    if (key !== "message" && key !== "keys")
      errors.push(
        unknownKey(`${path}/${pointerSegment(key)}`, key, "is not a member of a message; known: message, keys"),
      );
  if (value.message === undefined || value.message === null)
    errors.push({ path: `${path}/message`, code: "required", message: "is required: the text" });
  else if (typeof value.message !== "string") errors.push(typeError(`${path}/message`, "a string", value.message));
  if (value.keys !== undefined && value.keys !== null && !isObject(value.keys))
    errors.push(typeError(`${path}/keys`, "an object of placeholder values", value.keys));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The body without its null members (null means "not given"), so what is stored is what was said. */
function withoutNulls(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
}
