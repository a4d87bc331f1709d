/**
 * The response objects every path of the OpenAPI document shares: JSON bodies, pages of a list
 * with `Content-Range`, and the controller's one error shape (docs/aps/rest-api.md), declared once
 * under `components` and referenced from each operation.
 */
import { BaseSchemaNames } from "./schema-names.ts";
import { schemaRef, type Schema } from "./property-schemas.ts";

/** Statuses of the controller's own errors that any call may get, with what each means. */
const errorStatuses = {
  "400": "Bad JSON, RQL, parameters or values.",
  "401": "No or bad credentials.",
  "403": "Access denied.",
  "404": "Unknown or not visible.",
  "409": "State conflict.",
  "413": "The body is larger than the controller accepts (1 MiB; 32 MiB for a package archive).",
  "429": "Too many failed token checks from this address; try again after `Retry-After` seconds.",
  "502": "The application failed or cannot be reached.",
  "503": "The database did not answer in time; the request may be repeated.",
  "504": "The application did not answer in time.",
} as const;

/** `content` of a JSON body. */
export function jsonContent(schema: Schema): Record<string, { schema: Schema }> {
  return { "application/json": { schema } };
}

/** The error responses of an operation, as references to `components.responses`. */
export function errorResponses(): Record<string, { $ref: string }> {
  return Object.fromEntries(
    Object.keys(errorStatuses).map((code) => [code, { $ref: `#/components/responses/Error${code}` }]),
  );
}

/** A 200 answer with an array: the controller always says which part it is in `Content-Range`. */
export function listResponse(items: Schema): Record<string, unknown> {
  return {
    description: "A page of the list.",
    headers: { "Content-Range": { $ref: "#/components/headers/Content-Range" } },
    content: jsonContent({ type: "array", items }),
  };
}

/** What `listResponse` and `errorResponses` refer to: `components.headers` and `components.responses`. */
export function sharedResponseComponents(): { headers: Record<string, unknown>; responses: Record<string, unknown> } {
  return {
    headers: {
      "Content-Range": {
        description: "`items <first>-<last>/<total>`, or `items */<total>` for an empty page.",
        required: true,
        schema: { type: "string", pattern: "^items (\\d+-\\d+|\\*)/\\d+$" },
      },
    },
    responses: Object.fromEntries(
      Object.entries(errorStatuses).map(([code, description]) => [
        `Error${code}`,
        { description, content: jsonContent(schemaRef(BaseSchemaNames.error)) },
      ]),
    ),
  };
}

/** The schema of every controller error body (runtime/controller/support/errors.ts). */
export function errorSchema(): Schema {
  return {
    type: "object",
    description: "Every error of the controller. `type` and `error` both carry the class name (`NotFound`).",
    required: ["code", "type", "error", "message"],
    properties: {
      code: { type: "integer", description: "The HTTP status." },
      type: { type: "string" },
      error: { type: "string" },
      message: { type: "string", description: "What went wrong and what to do, for a person." },
      details: {
        type: "array",
        description: "Each problem with the request body, when there are several.",
        items: {
          type: "object",
          required: ["path", "code", "message"],
          properties: {
            path: { type: "string", description: "JSON pointer into the body; empty for the body itself." },
            code: { type: "string", description: "A stable validation code (`required`, `pattern`, ...)." },
            message: { type: "string" },
          },
        },
      },
    },
  };
}
