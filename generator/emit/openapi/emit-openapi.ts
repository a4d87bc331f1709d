/**
 * Emits an OpenAPI 3.1 document of the controller API for the given types: the generic resource paths with a `oneOf` of the types' shapes, every custom
 * operation, relation, subscription, application and administration path, the security schemes
 * (APS-Token, instance certificates), the error shape and `Content-Range`. `aps-gen build` writes
 * it to `generated/openapi/openapi.gen.ts`; `aps-gen serve` serves it at `/aps/2/openapi.json`.
 */
import type { GeneratedFile } from "../../host.ts";
import { jsonLiteral } from "../core/json-literal.ts";
import { isBaseOperation } from "../../model/base-operations.ts";
import type { ApsModel, Operation, ResolvedType, ResponseDecl } from "../../model/model.ts";
import { controllerPaths, resourceIdParameter, type PathItem, type PathMethod } from "./controller-paths.ts";
import { objectSchema, refSchema, resourceSchemas, schemaRef, type Schema } from "./property-schemas.ts";
import { errorResponses, errorSchema, jsonContent, listResponse, sharedResponseComponents } from "./responses.ts";
import { BaseSchemaNames, buildSchemaNames, type SchemaNames } from "./schema-names.ts";

/** The document as a plain object. */
export function buildOpenApi(model: ApsModel): Record<string, unknown> {
  const names = buildSchemaNames(model);
  const resourceTypes = [...model.types.values()].filter((t) => t.isResource);
  const nameOf = (t: ResolvedType) => names.type(t.id)!;
  const schemas: Record<string, Schema> = { ...baseSchemas() };
  for (const type of model.types.values()) {
    for (const s of type.decl.structures.values()) {
      schemas[names.structure(type.id, s.name)!] = objectSchema(s.properties.values(), names, {
        required: (p) => p.required,
        ...(s.description ? { description: s.description } : {}),
      });
    }
  }
  for (const type of resourceTypes) {
    const { read, create, update } = resourceSchemas(type, names);
    schemas[nameOf(type)] = read;
    schemas[`${nameOf(type)}Create`] = create;
    schemas[`${nameOf(type)}Update`] = update;
  }
  const oneOf = (suffix: string) => ({ oneOf: resourceTypes.map((t) => schemaRef(`${nameOf(t)}${suffix}`)) });
  const paths: Record<string, PathItem> = {
    "/aps/2/resources": {
      get: {
        operationId: "listResources",
        summary: "Lists resources the caller may see (RQL in the query string, docs/aps/rql.md).",
        parameters: [
          {
            name: "rql",
            in: "query",
            required: false,
            allowReserved: true,
            description: "The whole query string is RQL: `implementing(<type>)&eq(name,x)&sort(+name)&limit(0,10)`.",
            schema: { type: "string" },
          },
          {
            name: "Range",
            in: "header",
            required: false,
            description:
              "`items=<first>-<last>` (dojo stores) is a page when the query has no `limit(...)`; the reply is 200 with `Content-Range` also for a part.",
            schema: { type: "string" },
          },
        ],
        responses: { "200": listResponse(oneOf("")), ...errorResponses() },
      },
      put: {
        operationId: "configureResourceByBodyId",
        summary:
          "Configures the resource named by aps.id in the body (the form FallBall and the Connect extension use).",
        requestBody: { required: true, content: jsonContent(oneOf("Update")) },
        responses: {
          "200": { description: "The resource after the change.", content: jsonContent(oneOf("")) },
          "202": { description: "Accepted: the application finishes later.", content: jsonContent(oneOf("")) },
          ...errorResponses(),
        },
      },
      post: {
        operationId: "provisionResource",
        summary: "Provisions a resource of the type in aps.type.",
        requestBody: { required: true, content: jsonContent(oneOf("Create")) },
        responses: {
          "201": { description: "Created.", content: jsonContent(oneOf("")) },
          "202": {
            description: "Accepted: the application finishes later (APS-Info).",
            content: jsonContent(oneOf("")),
          },
          ...errorResponses(),
        },
      },
    },
    "/aps/2/resources/{id}": {
      parameters: [resourceIdParameter],
      get: {
        operationId: "getResource",
        responses: { "200": { description: "The resource.", content: jsonContent(oneOf("")) }, ...errorResponses() },
      },
      put: {
        operationId: "configureResource",
        requestBody: { required: true, content: jsonContent(oneOf("Update")) },
        responses: {
          "200": { description: "The resource after the change.", content: jsonContent(oneOf("")) },
          "202": { description: "Accepted: the application finishes later.", content: jsonContent(oneOf("")) },
          ...errorResponses(),
        },
      },
      delete: {
        operationId: "unprovisionResource",
        responses: {
          "204": { description: "Removed." },
          "202": { description: "Accepted: removed when the application finishes." },
          ...errorResponses(),
        },
      },
    },
  };
  const suspendable = resourceTypes.filter((t) => t.isSuspendable);
  if (suspendable.length) {
    for (const op of ["enable", "disable"])
      paths[`/aps/2/resources/{id}/${op}`] = {
        put: {
          operationId: `${op}Resource`,
          summary: `Suspendable (${suspendable.map(nameOf).join(", ")}), administrators only.`,
          parameters: [resourceIdParameter],
          responses: { "200": { description: "The resource.", content: jsonContent(oneOf("")) }, ...errorResponses() },
        },
      };
  }
  addRelations(paths, resourceTypes, names);
  addOperations(paths, resourceTypes, model, names);
  const serviceIds = [...new Set(resourceTypes.flatMap((t) => (t.decl.service ? [t.decl.service] : [])))].sort();
  Object.assign(paths, controllerPaths(serviceIds));
  return {
    openapi: "3.1.0",
    info: {
      title: "APS 2.0 controller (aps-gen)",
      version: "2.0",
      description: `The controller API for ${resourceTypes.length} resource types: ${resourceTypes.map((t) => t.id).join(", ")}.`,
    },
    security: [{ apsToken: [] }],
    paths,
    components: {
      securitySchemes: {
        apsToken: {
          type: "apiKey",
          in: "header",
          name: "APS-Token",
          description: "A token of a user or account (aps-gen token).",
        },
        instanceCertificate: {
          type: "mutualTLS",
          description: "The client certificate the controller's CA issued to an application instance.",
        },
      },
      ...sharedResponseComponents(),
      schemas,
    },
  };
}

/** The document as a generated module (so the host's banner rules and `build --check` cover it). */
export function emitOpenApi(model: ApsModel): GeneratedFile[] {
  // A bigint (a 64-bit default or enum value beyond 2^53) is written as a bigint literal, so the
  // module holds it exactly; the controller serves it as an exact JSON integer.
  const doc = jsonLiteral("export const openApiDocument: Record<string, unknown> = ", buildOpenApi(model), ";");
  return [
    {
      path: "openapi/openapi.gen.ts",
      content: `// Code generated by aps-gen from the declarations of this build. DO NOT EDIT.\n/** The OpenAPI 3.1 document of the controller API for these types. */\n${doc}`,
    },
  ];
}

function addRelations(paths: Record<string, PathItem>, types: readonly ResolvedType[], names: SchemaNames): void {
  const byName = new Map<string, ResolvedType[]>();
  for (const t of types) for (const r of t.relations.keys()) (byName.get(r) ?? byName.set(r, []).get(r)!).push(t);
  const known = new Set(types.map((t) => t.id));
  for (const [name, owners] of byName) {
    const targets = [...new Set(owners.map((t) => t.relations.get(name)!.typeId))]
      .filter((id) => known.has(id))
      .map((id) => names.type(id)!);
    const item = targets.length ? { oneOf: targets.map(schemaRef) } : { type: "object" };
    const who = owners.map((t) => names.type(t.id)).join(", ");
    paths[`/aps/2/resources/{id}/${name}`] = {
      parameters: [resourceIdParameter],
      get: {
        operationId: `listRelation_${name}`,
        summary: `The resources "${name}" links to (${who}).`,
        responses: { "200": listResponse(item), ...errorResponses() },
      },
      post: {
        operationId: `link_${name}`,
        summary: `Links "${name}" (${who}) to {"aps": {"id"}}, or provisions a new resource through it.`,
        requestBody: {
          required: true,
          content: jsonContent({ oneOf: [schemaRef(BaseSchemaNames.linkRef), { type: "object", required: ["aps"] }] }),
        },
        responses: {
          "200": { description: "The link.", content: jsonContent(schemaRef(BaseSchemaNames.link)) },
          "201": { description: "A resource provisioned through the relation." },
          ...errorResponses(),
        },
      },
    };
    paths[`/aps/2/resources/{id}/${name}/{targetId}`] = {
      delete: {
        operationId: `unlink_${name}`,
        parameters: [
          resourceIdParameter,
          { name: "targetId", in: "path", required: true, schema: { type: "string", format: "uuid" } },
        ],
        responses: { "204": { description: "Unlinked." }, ...errorResponses() },
      },
    };
  }
}

const PATH_METHODS: Readonly<Record<Operation["verb"], PathMethod>> = {
  GET: "get",
  PUT: "put",
  POST: "post",
  DELETE: "delete",
};

/** One type's custom operation. */
interface Declared {
  readonly type: ResolvedType;
  readonly op: Operation;
}

/**
 * The custom operations (docs/aps/rest-api.md) at their controller paths. Types may declare the same path
 * and verb (the controller routes by the resource's type); such a path is one operation of the
 * document that describes them all: the union of their parameters (required where every type
 * requires it) and a `oneOf` of their bodies and replies where they differ.
 */
function addOperations(
  paths: Record<string, PathItem>,
  types: readonly ResolvedType[],
  model: ApsModel,
  names: SchemaNames,
): void {
  const byPath = new Map<string, { path: string; method: PathMethod; declared: Declared[] }>();
  for (const type of types) {
    for (const op of type.operations.values()) {
      if (isBaseOperation(op, type, model)) continue;
      const path = op.static
        ? `/aps/2/static/${encodeURIComponent(type.id)}${op.path}`
        : `/aps/2/resources/{id}${op.path === "/" ? "" : op.path}`;
      const method = PATH_METHODS[op.verb];
      const entry = byPath.get(`${method} ${path}`) ?? { path, method, declared: [] };
      entry.declared.push({ type, op });
      byPath.set(`${method} ${path}`, entry);
    }
  }
  for (const { path, method, declared } of byPath.values()) {
    const item = (paths[path] ??= {});
    const what = declared.map(({ type, op }) => `${names.type(type.id)}.${op.name}`).join(", ");
    // A relation of another type at the same path and verb keeps its description; the operation is named in it.
    if (item[method]) item[method]!.description = `${String(item[method]!.description ?? "")} Also ${what}.`.trim();
    else item[method] = operationObject(declared, names);
  }
}

function operationObject(declared: readonly Declared[], names: SchemaNames): Record<string, unknown> {
  const first = declared[0]!.op;
  const label = ({ type, op }: Declared) => `${names.type(type.id)}.${op.name}`;
  const content = (decl: { readonly contentType?: string; readonly type?: ResponseDecl["type"] }) =>
    decl.contentType !== undefined
      ? {
          [decl.contentType || "application/octet-stream"]: {
            schema: { type: "string", contentMediaType: decl.contentType || "application/octet-stream" },
          },
        }
      : jsonContent(decl.type ? refSchema(decl.type, names) : {});
  const bodies = declared.map(({ op }) => op.parameters.find((p) => p.kind === "body"));
  const replies = declared.map(({ op }) => op.response);
  const errors = declared.map(({ op }) => op.errorResponse);
  const present = <T>(xs: readonly (T | undefined)[]) => xs.filter((x): x is T => x !== undefined);
  return {
    operationId: declared
      .map((d) => label(d).replace(".", "_"))
      .join("__")
      .replace(/[^A-Za-z0-9_.-]/g, "_"),
    summary:
      declared.length === 1
        ? `${label(declared[0]!)}${first.description ? `: ${first.description}` : ""}`
        : `${declared.map(label).join(", ")} (one path, several types)`,
    ...(declared.length > 1
      ? {
          description: declared
            .map((d) => `${label(d)}${d.op.description ? `: ${d.op.description}` : ""}`)
            .join("\n\n"),
        }
      : {}),
    ...parametersOf(declared, names),
    ...(present(bodies).length
      ? {
          requestBody: {
            required: bodies.every((b) => b?.required),
            content: mergeContent(present(bodies).map(content)),
          },
        }
      : {}),
    responses: {
      "200": {
        description: "The application's reply.",
        ...(present(replies).length ? { content: mergeContent(present(replies).map(content)) } : {}),
      },
      ...errorResponses(),
      // The controller passes the application's own error reply back with its status (docs/aps/rest-api.md, errors).
      ...(present(errors).length
        ? {
            default: {
              description:
                "The application's error reply (its declared errorResponse), passed back with the application's status.",
              content: mergeContent(present(errors).map(content)),
            },
          }
        : {}),
    },
  };
}

/** The path and query parameters of operations at one path: each once, required where all require it. */
function parametersOf(declared: readonly Declared[], names: SchemaNames): { parameters?: Record<string, unknown>[] } {
  const byName = new Map<
    string,
    { name: string; in: string; required: boolean; description?: string; schemas: Schema[]; count: number }
  >();
  for (const { op } of declared) {
    for (const p of op.parameters) {
      if (p.kind === "body") continue;
      const key = `${p.kind} ${p.name}`;
      const seen = byName.get(key) ?? { name: p.name, in: p.kind, required: true, schemas: [], count: 0 };
      seen.required &&= p.kind === "path" || p.required;
      seen.count++;
      if (p.description && !seen.description) seen.description = p.description;
      seen.schemas.push(p.type ? refSchema(p.type, names) : { type: "string" });
      byName.set(key, seen);
    }
  }
  const parameters = [
    ...(declared[0]!.op.static ? [] : [resourceIdParameter]),
    ...[...byName.values()].map((p) => ({
      name: p.name,
      in: p.in,
      required: p.in === "path" || (p.required && p.count === declared.length),
      ...(p.description ? { description: p.description } : {}),
      schema: oneOfDistinct(p.schemas),
    })),
  ];
  return parameters.length ? { parameters } : {};
}

/** Contents of several operations as one: per media type, the schema, or a `oneOf` of the distinct ones. */
function mergeContent(contents: readonly Record<string, { schema: Schema }>[]): Record<string, { schema: Schema }> {
  const byType = new Map<string, Schema[]>();
  for (const c of contents) {
    for (const [type, { schema }] of Object.entries(c)) {
      const schemas = byType.get(type);
      if (schemas) schemas.push(schema);
      else byType.set(type, [schema]);
    }
  }
  return Object.fromEntries([...byType].map(([type, schemas]) => [type, { schema: oneOfDistinct(schemas) }]));
}

function oneOfDistinct(schemas: readonly Schema[]): Schema {
  const distinct = [...new Map(schemas.map((s) => [JSON.stringify(s), s])).values()];
  return distinct.length === 1 ? distinct[0]! : { oneOf: distinct };
}

function baseSchemas(): Record<string, Schema> {
  return {
    [BaseSchemaNames.error]: errorSchema(),
    // The members of ApsMeta (runtime/common/types.ts), which the controller's resource view builds.
    [BaseSchemaNames.meta]: {
      type: "object",
      required: ["id", "type"],
      properties: {
        id: { type: "string", format: "uuid" },
        type: { type: "string" },
        status: { type: "string" },
        revision: { type: "integer" },
        modified: { type: "string", format: "date-time" },
        subscription: { type: "string" },
        schema: { type: "string" },
        package: {
          type: "object",
          required: ["id", "href"],
          properties: { id: { type: "string" }, href: { type: "string" } },
        },
      },
    },
    [BaseSchemaNames.linkRef]: {
      type: "object",
      required: ["aps"],
      properties: { aps: { type: "object", required: ["id"], properties: { id: { type: "string", format: "uuid" } } } },
    },
    [BaseSchemaNames.link]: {
      type: "object",
      properties: {
        aps: {
          type: "object",
          properties: {
            link: { enum: ["strong", "weak", "collection"] },
            id: { type: "string" },
            href: { type: "string" },
          },
        },
      },
    },
    [BaseSchemaNames.linkEntry]: {
      type: "object",
      properties: {
        relation: { type: "string" },
        kind: { type: "string" },
        direction: { enum: ["in", "out"] },
        id: { type: "string" },
        href: { type: "string" },
      },
    },
    [BaseSchemaNames.subscriptionRequest]: {
      type: "object",
      required: ["event", "source", "handler"],
      properties: {
        event: { type: "string", format: "uri" },
        source: {
          oneOf: [
            { type: "object", required: ["type"], properties: { type: { type: "string" } } },
            { type: "object", required: ["id"], properties: { id: { type: "string" } } },
          ],
        },
        handler: { type: "string" },
        relation: { type: "string" },
      },
    },
    [BaseSchemaNames.subscription]: {
      allOf: [
        schemaRef(BaseSchemaNames.subscriptionRequest),
        { type: "object", required: ["id"], properties: { id: { type: "string" } } },
      ],
    },
  };
}
