/**
 * Emits an OpenAPI 3.1 document of the controller API for the given types (DESIGN 1
 * `emit/openapi`): the generic resource paths with a `oneOf` of the types' shapes, every custom
 * operation, relation, subscription and administration path, the security schemes (APS-Token,
 * instance certificates), the error shape and `Content-Range`. `aps-gen build` writes it to
 * `generated/openapi/openapi.gen.ts`; `aps-gen serve` serves it at `/aps/2/openapi.json`.
 */
import type { GeneratedFile } from "../../host.ts";
import { isBaseOperation } from "../../model/base-operations.ts";
import type { ApsModel, Operation, ResolvedType, TypeRef } from "../../model/model.ts";
import { objectSchema, refSchema, resourceSchemas, structureSchemaName, type Schema } from "./property-schemas.ts";

type PathItem = Record<string, Record<string, unknown>>;

const json = (schema: Schema) => ({ "application/json": { schema } });
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const errors = ["400", "401", "403", "404", "409", "502", "504"];
const errorResponses = Object.fromEntries(errors.map((code) => [code, { $ref: `#/components/responses/Error${code}` }]));
const idParam = { name: "id", in: "path", required: true, description: "Resource id.", schema: { type: "string", format: "uuid" } };

/** The document as a plain object. */
export function buildOpenApi(model: ApsModel): Record<string, unknown> {
  const resourceTypes = [...model.types.values()].filter((t) => t.isResource);
  const typeNames = new Map([...model.types.values()].map((t) => [t.id, t.name]));
  const schemas: Record<string, Schema> = { ...baseSchemas() };
  for (const type of model.types.values()) {
    for (const s of type.decl.structures.values()) {
      schemas[structureSchemaName(type.name, s.name)] = objectSchema(s.properties.values(), typeNames, { required: (p) => p.required, ...(s.description ? { description: s.description } : {}) });
    }
  }
  for (const type of resourceTypes) {
    const { read, create, update } = resourceSchemas(type, typeNames);
    schemas[type.name] = read;
    schemas[`${type.name}Create`] = create;
    schemas[`${type.name}Update`] = update;
  }
  const oneOf = (suffix: string) => ({ oneOf: resourceTypes.map((t) => ref(`${t.name}${suffix}`)) });
  const paths: Record<string, PathItem> = {
    "/aps/2/resources": {
      get: {
        operationId: "listResources",
        summary: "Lists resources the caller may see (RQL in the query string, aps-facts 1).",
        parameters: [{ name: "rql", in: "query", required: false, allowReserved: true, description: "The whole query string is RQL: `implementing(<type>)&eq(name,x)&sort(+name)&limit(0,10)`.", schema: { type: "string" } }],
        responses: { "200": listResponse(oneOf("")), "206": listResponse(oneOf("")), ...errorResponses },
      },
      post: { operationId: "provisionResource", summary: "Provisions a resource of the type in aps.type.", requestBody: { required: true, content: json(oneOf("Create")) }, responses: { "201": { description: "Created.", content: json(oneOf("")) }, "202": { description: "Accepted: the application finishes later (APS-Info).", content: json(oneOf("")) }, ...errorResponses } },
    },
    "/aps/2/resources/{id}": {
      parameters: [idParam] as never,
      get: { operationId: "getResource", responses: { "200": { description: "The resource.", content: json(oneOf("")) }, ...errorResponses } },
      put: { operationId: "configureResource", requestBody: { required: true, content: json(oneOf("Update")) }, responses: { "200": { description: "The resource after the change.", content: json(oneOf("")) }, "202": { description: "Accepted: the application finishes later.", content: json(oneOf("")) }, ...errorResponses } },
      delete: { operationId: "unprovisionResource", responses: { "204": { description: "Removed." }, "202": { description: "Accepted: removed when the application finishes." }, ...errorResponses } },
    },
    "/aps/2/resources/{id}/aps/links": { get: { operationId: "listLinks", parameters: [idParam], responses: { "200": listResponse({ type: "array", items: ref("LinkEntry") }), ...errorResponses } } },
    "/aps/2/resources/{id}/aps/subscriptions": {
      parameters: [idParam] as never,
      get: { operationId: "listSubscriptions", security: securityBoth(), responses: { "200": listResponse({ type: "array", items: ref("Subscription") }), ...errorResponses } },
      post: { operationId: "subscribe", security: securityBoth(), requestBody: { required: true, content: json(ref("SubscriptionRequest")) }, responses: { "201": { description: "The stored subscription.", content: json(ref("Subscription")) }, ...errorResponses } },
    },
    "/aps/2/resources/{id}/aps/subscriptions/{subscriptionId}": { delete: { operationId: "unsubscribe", security: securityBoth(), parameters: [idParam, { name: "subscriptionId", in: "path", required: true, schema: { type: "string" } }], responses: { "204": { description: "Removed." }, ...errorResponses } } },
  };
  const suspendable = resourceTypes.filter((t) => t.isSuspendable);
  if (suspendable.length) {
    for (const op of ["enable", "disable"]) paths[`/aps/2/resources/{id}/${op}`] = { put: { operationId: `${op}Resource`, summary: `Suspendable (${suspendable.map((t) => t.name).join(", ")}), administrators only.`, parameters: [idParam], responses: { "200": { description: "The resource.", content: json(oneOf("")) }, ...errorResponses } } };
  }
  addRelations(paths, resourceTypes, typeNames);
  for (const type of resourceTypes) for (const op of type.operations.values()) if (!isBaseOperation(op, type, model)) addOperation(paths, type, op, typeNames);
  Object.assign(paths, adminPaths());
  return {
    openapi: "3.1.0",
    info: { title: "APS 2.0 controller (aps-gen)", version: "2.0", description: `The controller API for ${resourceTypes.length} resource types: ${resourceTypes.map((t) => t.id).join(", ")}.` },
    security: [{ apsToken: [] }],
    paths,
    components: {
      securitySchemes: {
        apsToken: { type: "apiKey", in: "header", name: "APS-Token", description: "A token of a user or account (aps-gen token)." },
        instanceCertificate: { type: "mutualTLS", description: "The client certificate the controller's CA issued to an application instance." },
      },
      headers: { "Content-Range": { description: "`items <first>-<last>/<total>`, or `items */<total>` for an empty page (SPEC 4.6).", schema: { type: "string" } } },
      responses: Object.fromEntries(errors.map((code) => [`Error${code}`, { description: errorText(code), content: json(ref("Error")) }])),
      schemas,
    },
  };
}

/** The document as a generated module (so the host's banner rules and `build --check` cover it). */
export function emitOpenApi(model: ApsModel): GeneratedFile[] {
  const doc = JSON.stringify(buildOpenApi(model), null, 2);
  return [{ path: "openapi/openapi.gen.ts", content: `// Code generated by aps-gen from the declarations of this build. DO NOT EDIT.\n/** The OpenAPI 3.1 document of the controller API for these types. */\nexport const openApiDocument: Record<string, unknown> = ${doc};\n` }];
}

function listResponse(items: Schema) {
  return { description: "A page of the list.", headers: { "Content-Range": { $ref: "#/components/headers/Content-Range" } }, content: json(items.type === "array" ? items : { type: "array", items }) };
}

function securityBoth() {
  return [{ apsToken: [] }, { instanceCertificate: [] }];
}

function addRelations(paths: Record<string, PathItem>, types: readonly ResolvedType[], typeNames: ReadonlyMap<string, string>): void {
  const byName = new Map<string, ResolvedType[]>();
  for (const t of types) for (const r of t.relations.keys()) byName.set(r, [...(byName.get(r) ?? []), t]);
  for (const [name, owners] of byName) {
    const targets = [...new Set(owners.map((t) => t.relations.get(name)!.typeId))].map((id) => typeNames.get(id)).filter((n): n is string => !!n && types.some((t) => t.name === n));
    const item = targets.length ? { oneOf: targets.map((n) => ref(n)) } : { type: "object" };
    const who = owners.map((t) => t.name).join(", ");
    paths[`/aps/2/resources/{id}/${name}`] = {
      parameters: [idParam] as never,
      get: { operationId: `listRelation_${name}`, summary: `The resources "${name}" links to (${who}).`, responses: { "200": listResponse({ type: "array", items: item }), ...errorResponses } },
      post: { operationId: `link_${name}`, summary: `Links "${name}" (${who}) to {"aps": {"id"}}, or provisions a new resource through it.`, requestBody: { required: true, content: json({ oneOf: [ref("LinkRef"), { type: "object", required: ["aps"] }] }) }, responses: { "200": { description: "The link.", content: json(ref("Link")) }, "201": { description: "A resource provisioned through the relation." }, ...errorResponses } },
    };
    paths[`/aps/2/resources/{id}/${name}/{targetId}`] = { delete: { operationId: `unlink_${name}`, parameters: [idParam, { name: "targetId", in: "path", required: true, schema: { type: "string", format: "uuid" } }], responses: { "204": { description: "Unlinked." }, ...errorResponses } } };
  }
}

function addOperation(paths: Record<string, PathItem>, type: ResolvedType, op: Operation, typeNames: ReadonlyMap<string, string>): void {
  const path = op.static ? `/aps/2/static/${encodeURIComponent(type.id)}${op.path}` : `/aps/2/resources/{id}${op.path === "/" ? "" : op.path}`;
  const method = op.verb.toLowerCase();
  const item = (paths[path] ??= {});
  if (item[method]) {
    item[method]!.description = `${String(item[method]!.description ?? "")} Also ${type.name}.${op.name}.`.trim();
    return;
  }
  const parameters = [
    ...(op.static ? [] : [idParam]),
    ...op.parameters.filter((p) => p.kind !== "body").map((p) => ({ name: p.name, in: p.kind, required: p.kind === "path" || p.required, ...(p.description ? { description: p.description } : {}), schema: p.type ? refSchema(p.type, typeNames) : { type: "string" } })),
  ];
  const body = op.parameters.find((p) => p.kind === "body");
  const content = (decl: { readonly contentType?: string; readonly type?: TypeRef } | undefined) =>
    decl?.contentType !== undefined ? { [decl.contentType || "application/octet-stream"]: { schema: { type: "string", contentMediaType: decl.contentType || "application/octet-stream" } } } : json(decl?.type ? refSchema(decl.type, typeNames) : {});
  item[method] = {
    operationId: `${type.name}_${op.name}`.replace(/[^A-Za-z0-9_.-]/g, "_"),
    summary: `${type.name}.${op.name}${op.description ? `: ${op.description}` : ""}`,
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: { required: body.required, content: content(body) } } : {}),
    responses: { "200": { description: "The application's reply.", ...(op.response ? { content: content(op.response) } : {}) }, ...errorResponses },
  };
}

function adminPaths(): Record<string, PathItem> {
  const list = (id: string, summary: string, items: Schema) => ({ get: { operationId: id, summary, responses: { "200": listResponse({ type: "array", items }), ...errorResponses } } });
  const obj = { type: "object" };
  return {
    "/aps/2/types": list("listTypes", "Types the controller knows.", obj),
    "/aps/2/packages": { ...list("listPackages", "Imported packages.", obj), post: { operationId: "importPackage", summary: "Imports an .app.zip (provider administrators).", requestBody: { content: { "application/zip": { schema: { type: "string", contentMediaType: "application/zip" } } } }, responses: { "201": { description: "Imported.", content: json(obj) }, ...errorResponses } } },
    "/aps/2/instances": { ...list("listInstances", "Application instances (provider administrators).", obj), post: { operationId: "installInstance", requestBody: { content: json({ type: "object", required: ["package", "endpoint"], properties: { package: { type: "string" }, endpoint: { type: "string", format: "uri" }, endpointCa: { type: "string" }, settings: obj } }) }, responses: { "201": { description: "Installed.", content: json(obj) }, ...errorResponses } } },
    "/aps/2/tasks": list("listTasks", "Asynchronous operations (provider administrators).", obj),
    "/aps/2/events/pending": list("listPendingNotifications", "Notifications not yet delivered (provider administrators).", obj),
    "/aps/2/events/dead": list("listDeadLetters", "Notifications given up after their retries (provider administrators).", obj),
    "/aps/2/events/dead/replay": { post: { operationId: "replayDeadLetters", responses: { "200": { description: "How many were queued again.", content: json(obj) }, ...errorResponses } } },
    "/aps/2/application": { get: { operationId: "listApplicationServices", security: [{ instanceCertificate: [] }], responses: { "200": { description: "The services of the instance's package.", content: json({ type: "array", items: obj }) }, ...errorResponses } } },
  };
}

function baseSchemas(): Record<string, Schema> {
  return {
    Error: { type: "object", required: ["code", "type", "message"], properties: { code: { type: "integer" }, type: { type: "string" }, error: { type: "string" }, message: { type: "string" }, details: { type: "array", items: { type: "object", properties: { path: { type: "string" }, code: { type: "string" }, message: { type: "string" } } } } } },
    ApsMeta: { type: "object", properties: { id: { type: "string", format: "uuid" }, type: { type: "string" }, status: { type: "string" }, revision: { type: "integer" }, created: { type: "string", format: "date-time" }, modified: { type: "string", format: "date-time" } } },
    LinkRef: { type: "object", required: ["aps"], properties: { aps: { type: "object", required: ["id"], properties: { id: { type: "string", format: "uuid" } } } } },
    Link: { type: "object", properties: { aps: { type: "object", properties: { link: { enum: ["strong", "weak", "collection"] }, id: { type: "string" }, href: { type: "string" } } } } },
    LinkEntry: { type: "object", properties: { relation: { type: "string" }, kind: { type: "string" }, direction: { enum: ["in", "out"] }, id: { type: "string" }, href: { type: "string" } } },
    SubscriptionRequest: { type: "object", required: ["event", "source", "handler"], properties: { event: { type: "string", format: "uri" }, source: { oneOf: [{ type: "object", required: ["type"], properties: { type: { type: "string" } } }, { type: "object", required: ["id"], properties: { id: { type: "string" } } }] }, handler: { type: "string" }, relation: { type: "string" } } },
    Subscription: { allOf: [{ $ref: "#/components/schemas/SubscriptionRequest" }, { type: "object", required: ["id"], properties: { id: { type: "string" } } }] },
  };
}

function errorText(code: string): string {
  return { "400": "Bad JSON, RQL, parameters or values.", "401": "No or bad credentials.", "403": "Access denied.", "404": "Unknown or not visible.", "409": "State conflict.", "502": "The application failed or cannot be reached.", "504": "The application did not answer in time." }[code] ?? "Error.";
}
