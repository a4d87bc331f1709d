/**
 * The paths of the OpenAPI document whose shape does not depend on the declared types: links
 * and event subscriptions of a resource, types, packages, the `/aps/2/application` collection
 * of application instances (docs/aps/rest-api.md), and the administration lists of aps-gen's controller.
 */
import { errorResponses, jsonContent, listResponse } from "./responses.ts";
import { BaseSchemaNames } from "./schema-names.ts";
import { schemaRef, type Schema } from "./property-schemas.ts";

/** An operation object (OpenAPI 3.1 §4.8.10): its id, summary, parameters, body and responses. */
type OperationObject = Record<string, unknown>;

/** The methods the controller serves, as path items name them. */
export type PathMethod = "get" | "put" | "post" | "delete";

/** A path item: its operations by method, and parameters shared by them. */
export type PathItem = { parameters?: Record<string, unknown>[] } & { [M in PathMethod]?: OperationObject };

/** The `{id}` path parameter of a resource. */
export const resourceIdParameter = {
  name: "id",
  in: "path",
  required: true,
  description: "Resource id.",
  schema: { type: "string", format: "uuid" },
};

/** Callers that may use the resource paths: users by token, application instances by certificate. */
function tokenOrCertificate(): Record<string, string[]>[] {
  return [{ apsToken: [] }, { instanceCertificate: [] }];
}

const anyObject: Schema = { type: "object" };
const pathParameter = (name: string, description: string, schema: Schema = { type: "string" }) => ({
  name,
  in: "path",
  required: true,
  description,
  schema,
});

/** The type-independent paths; `serviceIds` are the APP-META services of the inputs. */
export function controllerPaths(serviceIds: readonly string[]): Record<string, PathItem> {
  return {
    ...resourceFacetPaths(),
    ...catalogPaths(),
    ...applicationPaths(serviceIds),
    ...administrationPaths(),
    ...platformPaths(),
    ...uiPaths(),
    ...operationsPaths(),
  };
}

/** For operators' probes and Prometheus (runtime/controller/routes/operations.ts): no credentials. */
function operationsPaths(): Record<string, PathItem> {
  const readiness: Schema = {
    type: "object",
    required: ["status", "database"],
    properties: {
      status: { type: "string", enum: ["ready", "not ready"] },
      database: { type: "string", enum: ["ok", "unreachable"] },
      migrations: {
        type: "object",
        properties: { applied: { type: "integer" }, total: { type: "integer" }, pending: { type: "integer" } },
      },
      message: { type: "string" },
    },
  };
  return {
    "/healthz": {
      get: {
        operationId: "getHealth",
        summary: "Liveness: the process serves HTTP (the database is not asked).",
        security: [],
        responses: {
          "200": {
            description: '`{"status": "ok"}`.',
            content: jsonContent({
              type: "object",
              required: ["status"],
              properties: { status: { type: "string", enum: ["ok"] } },
            }),
          },
        },
      },
    },
    "/readyz": {
      get: {
        operationId: "getReadiness",
        summary:
          "Readiness: the database answers and every migration is applied. Not ready is a 503 error whose body also has `status`, `database` (`ok`, `unreachable`) and, when migrations are pending, `migrations` ({applied, total, pending}).",
        security: [],
        responses: {
          "200": { description: "Ready.", content: jsonContent(readiness) },
          "503": { $ref: "#/components/responses/Error503" },
        },
      },
    },
    "/metrics": {
      get: {
        operationId: "getMetrics",
        summary: "Prometheus metrics of this controller process.",
        security: [],
        responses: {
          "200": {
            description: "Prometheus text exposition format 0.0.4.",
            content: { "text/plain": { schema: { type: "string" } } },
          },
        },
      },
    },
  };
}

/**
 * The platform's own forms that connectors use (docs/platform-forms.md §1.1, §1.2): the version
 * probe, the application instances collection, and the one platform service offered.
 */
function platformPaths(): Record<string, PathItem> {
  const instance = pathParameter("applicationId", "Application instance id (`aps.id`).", {
    type: "string",
    format: "uuid",
  });
  const view: Schema = {
    type: "object",
    description:
      "An instance: `aps.id` the instance, `app` its application root resource (apsconnect-cli reads `app.aps.id`).",
    properties: {
      aps: { type: "object", properties: { id: { type: "string" }, href: { type: "string" } } },
      package: anyObject,
      app: {
        type: "object",
        properties: {
          aps: {
            type: "object",
            properties: { id: { type: "string" }, type: { type: "string" }, href: { type: "string" } },
          },
        },
      },
      endpoint: { type: "string" },
    },
  };
  const install: Schema = {
    type: "object",
    required: ["aps"],
    description: "The root resource's settings beside `aps`.",
    properties: {
      aps: {
        type: "object",
        required: ["package", "endpoint"],
        properties: {
          package: {
            type: "object",
            description:
              '`{"type": <APP-META id>, "version"?, "release"?}` (the newest that fits) or `{"id": <package id>}`.',
            properties: { type: { type: "string" }, version: {}, release: {}, id: { type: "string" } },
          },
          endpoint: { type: "string", format: "uri" },
          network: {
            type: "string",
            enum: ["proxy", "direct"],
            description: "Accepted; the controller calls the endpoint directly either way.",
          },
          auth: {
            type: "object",
            properties: {
              oauth: {
                type: "object",
                required: ["key", "secret"],
                properties: { key: { type: "string" }, secret: { type: "string" } },
              },
            },
          },
          endpointCa: {
            type: "string",
            description: "aps-gen's: PEM of the CA of the endpoint's HTTPS certificate, when no public CA issued it.",
          },
        },
      },
    },
    additionalProperties: true,
  };
  const rtm = "/aps/2/services/resource-type-manager";
  return {
    "/aps": {
      get: {
        operationId: "getApsVersions",
        summary: "The APS API versions served, in the platform's form `{versions: {<v>: {version, href, features}}}`.",
        security: [],
        responses: {
          "200": {
            description: "Versions.",
            content: jsonContent({
              type: "object",
              required: ["versions"],
              properties: {
                versions: {
                  type: "object",
                  additionalProperties: {
                    type: "object",
                    properties: { version: { type: "string" }, href: { type: "string" } },
                  },
                },
              },
            }),
          },
        },
      },
    },
    "/aps/2/applications": {
      get: {
        operationId: "listApplications",
        summary: "Application instances in the platform's form (provider administrators).",
        responses: { "200": listResponse(view), ...errorResponses() },
      },
      post: {
        operationId: "installApplication",
        summary:
          "Installs an instance from the platform's body (apsconnect-cli, the Connect extension); 200, the only success those clients take. An application acting for its root resource (`APS-Resource-ID`) installs as the provider.",
        security: tokenOrCertificate(),
        requestBody: { required: true, content: jsonContent(install) },
        responses: { "200": { description: "Installed.", content: jsonContent(view) }, ...errorResponses() },
      },
    },
    "/aps/2/applications/{applicationId}": {
      parameters: [instance],
      get: {
        operationId: "getApplication",
        responses: { "200": { description: "The instance.", content: jsonContent(view) }, ...errorResponses() },
      },
      delete: {
        operationId: "uninstallApplication",
        summary: "As DELETE /aps/2/instances/{id}.",
        parameters: [
          {
            name: "force",
            in: "query",
            required: false,
            description: "`true` removes the instance even when its endpoint cannot be reached.",
            schema: { type: "boolean" },
          },
        ],
        responses: {
          "200": {
            description: "What was removed, and the endpoint's errors when forced.",
            content: jsonContent(anyObject),
          },
          ...errorResponses(),
        },
      },
    },
    "/aps/2/applications/{applicationId}/upgrade": {
      parameters: [instance],
      post: {
        operationId: "upgradeApplication",
        summary:
          "Upgrades the instance to a newer package of its application, in the install body's form (`aps.package`, settings); as POST /aps/2/instances/{id}/upgrade.",
        requestBody: { required: true, content: jsonContent(anyObject) },
        responses: {
          "200": { description: "The instance, on its new package.", content: jsonContent(view) },
          ...errorResponses(),
        },
      },
    },
    "/aps/2/services/notification-manager": {
      get: {
        operationId: "getNotificationManager",
        summary: "Where the platform's notification manager is: its resource id and its notifications.",
        responses: { "200": { description: "The service.", content: jsonContent(anyObject) }, ...errorResponses() },
      },
    },
    "/aps/2/resources/{id}/notifications/{notificationId}": {
      get: {
        operationId: "getPlatformNotification",
        summary:
          "One notification posted to the notification manager (`{id}` is the manager), when the caller may see it.",
        parameters: [
          resourceIdParameter,
          pathParameter("notificationId", "Notification id.", { type: "string", format: "uuid" }),
        ],
        responses: {
          "200": { description: "The notification.", content: jsonContent(anyObject) },
          ...errorResponses(),
        },
      },
    },
    [rtm]: {
      get: {
        operationId: "getResourceTypeManager",
        summary:
          "The resource-type manager, present so that connectors find it; it keeps no resource types. Other platform services are 404.",
        responses: { "200": { description: "The service.", content: jsonContent(anyObject) }, ...errorResponses() },
      },
    },
    [`${rtm}/resourceTypes`]: {
      get: {
        operationId: "listResourceTypes",
        summary: "Always empty: billing resource types are made through OA RPC, which aps-gen does not serve.",
        responses: { "200": listResponse(anyObject), ...errorResponses() },
      },
    },
    [`${rtm}/resourceTypes/{resourceTypeId}`]: {
      get: {
        operationId: "getResourceType",
        parameters: [pathParameter("resourceTypeId", "Resource type id.")],
        responses: {
          "200": { description: "Never: there are none (404).", content: jsonContent(anyObject) },
          ...errorResponses(),
        },
      },
    },
  };
}

/** Paths for user interfaces; the two documents need no token. */
function uiPaths(): Record<string, PathItem> {
  return {
    "/aps/2/openapi.json": {
      get: {
        operationId: "getOpenApi",
        summary: "This document.",
        security: [],
        responses: { "200": { description: "The OpenAPI document.", content: jsonContent(anyObject) } },
      },
    },
    "/aps/2/ui/runtime/version.html": {
      get: {
        operationId: "getUiRuntimeVersion",
        summary: "The version of the UI runtime.",
        security: [],
        responses: {
          "200": {
            description: "An HTML page with the version.",
            content: { "text/html": { schema: { type: "string" } } },
          },
        },
      },
    },
    "/aps/2/navigation": {
      post: {
        operationId: "postNavigation",
        summary: "Replaces the navigation tree (provider administrators; bounded in size, depth and values).",
        requestBody: { required: true, content: jsonContent(anyObject) },
        responses: {
          "201": { description: "The tree as stored, with its fixed id.", content: jsonContent(anyObject) },
          ...errorResponses(),
        },
      },
    },
  };
}

function resourceFacetPaths(): Record<string, PathItem> {
  return {
    "/aps/2/resources/{id}/aps/links": {
      get: {
        operationId: "listLinks",
        summary: "Every link of the resource, both directions.",
        parameters: [resourceIdParameter],
        responses: { "200": listResponse(schemaRef(BaseSchemaNames.linkEntry)), ...errorResponses() },
      },
    },
    "/aps/2/resources/{id}/aps/subscriptions": {
      parameters: [resourceIdParameter],
      get: {
        operationId: "listSubscriptions",
        security: tokenOrCertificate(),
        responses: { "200": listResponse(schemaRef(BaseSchemaNames.subscription)), ...errorResponses() },
      },
      post: {
        operationId: "subscribe",
        summary: "Subscribes the resource to an event (docs/aps/events.md).",
        security: tokenOrCertificate(),
        requestBody: { required: true, content: jsonContent(schemaRef(BaseSchemaNames.subscriptionRequest)) },
        responses: {
          "200": {
            description: "The stored subscription (200, as connectors expect).",
            content: jsonContent(schemaRef(BaseSchemaNames.subscription)),
          },
          ...errorResponses(),
        },
      },
      delete: {
        operationId: "unsubscribeById",
        summary: 'Removes the subscription named by `?id=` or a body `{"id"}`.',
        security: tokenOrCertificate(),
        parameters: [
          {
            name: "id",
            in: "query",
            required: false,
            description: "Subscription id (or in the body).",
            schema: { type: "string" },
          },
        ],
        responses: { "204": { description: "Removed." }, ...errorResponses() },
      },
    },
    "/aps/2/resources/{id}/aps/subscriptions/{subscriptionId}": {
      delete: {
        operationId: "unsubscribe",
        security: tokenOrCertificate(),
        parameters: [resourceIdParameter, pathParameter("subscriptionId", "Subscription id.")],
        responses: { "204": { description: "Removed." }, ...errorResponses() },
      },
    },
  };
}

function catalogPaths(): Record<string, PathItem> {
  const zip = { "application/zip": { schema: { type: "string", contentMediaType: "application/zip" } } };
  return {
    "/aps/2/types": {
      get: {
        operationId: "listTypes",
        summary:
          "Types the controller knows, as declared; RQL `implementing(<id>)`, `composing(<id>)`, `eq(name,<name>)`, `limit(<start>,<count>)`, or the short form `?id=<type id>`.",
        responses: { "200": listResponse(anyObject), ...errorResponses() },
      },
    },
    "/aps/2/types/{typeId}": {
      get: {
        operationId: "getType",
        parameters: [pathParameter("typeId", "The type id, URL-encoded as one segment.")],
        responses: {
          "200": {
            description:
              "The type's APS JSON declaration as written (own members; `implements` names the parents), with `aps.href`.",
            content: jsonContent(anyObject),
          },
          ...errorResponses(),
        },
      },
    },
    "/aps/2/packages": {
      get: {
        operationId: "listPackages",
        summary: "Imported packages.",
        responses: { "200": listResponse(anyObject), ...errorResponses() },
      },
      post: {
        operationId: "importPackage",
        summary: "Imports an .app.zip (provider administrators).",
        requestBody: { required: true, content: zip },
        responses: { "201": { description: "Imported.", content: jsonContent(anyObject) }, ...errorResponses() },
      },
    },
    "/aps/2/packages/{packageId}": {
      get: {
        operationId: "getPackage",
        parameters: [pathParameter("packageId", "Package id.")],
        responses: { "200": { description: "The package.", content: jsonContent(anyObject) }, ...errorResponses() },
      },
    },
    "/aps/2/packages/{packageId}/{file}": {
      get: {
        operationId: "getPackageFile",
        summary: "A file of the package, `APP-META.xml` for one.",
        parameters: [
          pathParameter("packageId", "Package id."),
          pathParameter("file", "Path of the file in the package, URL-encoded as one segment."),
        ],
        responses: {
          "200": {
            description: "The file, with a content type from its name.",
            content: { "*/*": { schema: { type: "string", contentMediaType: "application/octet-stream" } } },
          },
          ...errorResponses(),
        },
      },
    },
  };
}

function applicationPaths(serviceIds: readonly string[]): Record<string, PathItem> {
  const certificate = [{ instanceCertificate: [] }];
  const service = pathParameter("serviceId", "An APP-META.xml service of the instance's package.", {
    type: "string",
    ...(serviceIds.length ? { enum: [...serviceIds] } : {}),
  });
  const resource = pathParameter("resourceId", "Resource id.", { type: "string", format: "uuid" });
  const headers = [
    {
      name: "APS-Transaction-ID",
      in: "header",
      required: false,
      description: "The transaction id the controller sent, to join its business transaction.",
      schema: { type: "string" },
    },
    {
      name: "APS-Resource-ID",
      in: "header",
      required: false,
      description: "One of the application's resources, to act for its owner.",
      schema: { type: "string" },
    },
  ];
  // Applications read and write every property, readonly and encrypted ones too (docs/aps/security.md), so
  // the typed read shapes (which leave encrypted properties out) would not describe these bodies.
  const body: Schema = {
    type: "object",
    description: "A resource of the service's type with all its properties.",
    properties: { aps: schemaRef(BaseSchemaNames.meta) },
  };
  const reply = (description: string) => ({ description, content: jsonContent(body) });
  return {
    "/aps/2/application": {
      get: {
        operationId: "listApplicationServices",
        summary:
          "The services of the instance's package, keyed by service id, with the type each serves and where that type's document is (`schema`).",
        security: certificate,
        responses: {
          "200": {
            description: "Services by id.",
            content: jsonContent({
              type: "object",
              additionalProperties: {
                type: "object",
                required: ["schema", "type", "href"],
                properties: { schema: { type: "string" }, type: { type: "string" }, href: { type: "string" } },
              },
            }),
          },
          ...errorResponses(),
        },
      },
    },
    "/aps/2/application/{serviceId}": {
      post: {
        operationId: "registerApplicationResource",
        summary: "Registers a resource the application created itself; nothing is sent back to it.",
        security: certificate,
        parameters: [service, ...headers],
        requestBody: { required: true, content: jsonContent(body) },
        responses: { "201": reply("The stored resource."), ...errorResponses() },
      },
    },
    "/aps/2/application/{serviceId}/{resourceId}": {
      parameters: [service, resource, ...headers],
      get: {
        operationId: "getApplicationResource",
        security: certificate,
        responses: { "200": reply("The resource."), ...errorResponses() },
      },
      put: {
        operationId: "configureApplicationResource",
        summary: "Changes properties, readonly ones and `aps.status` included.",
        security: certificate,
        requestBody: { required: true, content: jsonContent(body) },
        responses: { "200": reply("The resource after the change."), ...errorResponses() },
      },
      delete: {
        operationId: "unregisterApplicationResource",
        security: certificate,
        responses: { "204": { description: "Removed." }, ...errorResponses() },
      },
    },
    "/aps/2/application/{serviceId}/{resourceId}/{relation}/{targetId}": {
      parameters: [
        service,
        resource,
        pathParameter("relation", "A relation of the resource's type."),
        pathParameter("targetId", "The resource to link.", { type: "string", format: "uuid" }),
        ...headers,
      ],
      post: {
        operationId: "linkApplicationResource",
        summary: "Links the target into the relation; no body (the Connect extension's form).",
        security: certificate,
        responses: { "200": { description: "The link.", content: jsonContent(anyObject) }, ...errorResponses() },
      },
      delete: {
        operationId: "unlinkApplicationResource",
        security: certificate,
        responses: { "204": { description: "Unlinked." }, ...errorResponses() },
      },
    },
  };
}

function administrationPaths(): Record<string, PathItem> {
  const list = (operationId: string, summary: string) => ({
    get: { operationId, summary, responses: { "200": listResponse(anyObject), ...errorResponses() } },
  });
  const one = (description: string) => ({ description, content: jsonContent(anyObject) });
  const instance = pathParameter("instanceId", "Application instance id.", { type: "string", format: "uuid" });
  const notification = pathParameter("notificationId", "Outbox notification id.", { type: "integer", minimum: 1 });
  const replayed = {
    description: "How many were queued again.",
    content: jsonContent({ type: "object", required: ["replayed"], properties: { replayed: { type: "integer" } } }),
  };
  const suspension = (operationId: string, summary: string) => ({
    operationId,
    summary,
    parameters: [pathParameter("accountId", "Account resource id.", { type: "string", format: "uuid" })],
    responses: {
      "200": one("The resources changed, how many were already so, and those that failed."),
      ...errorResponses(),
    },
  });
  return {
    "/aps/2/instances": {
      ...list("listInstances", "Application instances (provider administrators)."),
      post: {
        operationId: "installInstance",
        requestBody: {
          required: true,
          content: jsonContent({
            type: "object",
            required: ["package", "endpoint"],
            properties: {
              package: { type: "string" },
              endpoint: { type: "string", format: "uri" },
              endpointCa: { type: "string" },
              settings: anyObject,
            },
          }),
        },
        responses: { "201": { description: "Installed.", content: jsonContent(anyObject) }, ...errorResponses() },
      },
    },
    "/aps/2/instances/{instanceId}": {
      parameters: [instance],
      get: { operationId: "getInstance", responses: { "200": one("The instance."), ...errorResponses() } },
      delete: {
        operationId: "uninstallInstance",
        summary: "Unprovisions the instance's resources in a safe order and removes it.",
        parameters: [
          {
            name: "force",
            in: "query",
            required: false,
            description: "`true` removes the instance even when its endpoint cannot be reached.",
            schema: { type: "boolean" },
          },
        ],
        responses: { "200": one("What was removed, and the endpoint's errors when forced."), ...errorResponses() },
      },
    },
    "/aps/2/instances/{instanceId}/upgrade": {
      post: {
        operationId: "upgradeInstance",
        summary:
          "Moves the instance and every resource it serves to a newer package of its application, calling the endpoint's upgrade; rolled back when the endpoint fails.",
        parameters: [instance],
        requestBody: {
          required: true,
          content: jsonContent({
            type: "object",
            required: ["package"],
            properties: { package: {}, settings: anyObject },
          }),
        },
        responses: { "200": one("The instance, on its new package."), ...errorResponses() },
      },
    },
    "/aps/2/instances/{instanceId}/credentials": {
      post: {
        operationId: "reissueCredentials",
        summary: "Issues a new certificate for the instance and sends it to the endpoint.",
        parameters: [instance],
        responses: { "200": one("The instance."), ...errorResponses() },
      },
    },
    "/aps/2/instances/{instanceId}/health": {
      get: {
        operationId: "checkEndpointHealth",
        summary:
          "Whether the instance's endpoint answers a GET of its root over HTTPS now (any status counts), and how fast; an unreachable one is reachable: false with why.",
        parameters: [instance],
        responses: { "200": one("The endpoint's health."), ...errorResponses() },
      },
    },
    "/aps/2/tasks": list("listTasks", "Asynchronous operations (provider administrators)."),
    "/aps/2/tasks/{taskId}": {
      delete: {
        operationId: "removeTask",
        summary: "Removes a failed or finished task; a pending one is a 409.",
        parameters: [pathParameter("taskId", "Task id.", { type: "string", format: "uuid" })],
        responses: { "204": { description: "Removed." }, ...errorResponses() },
      },
    },
    "/aps/2/tasks/{taskId}/retry": {
      post: {
        operationId: "retryTask",
        summary: "Puts a failed task back in the queue, due now; a pending or finished one is a 409.",
        parameters: [pathParameter("taskId", "Task id.", { type: "string", format: "uuid" })],
        responses: { "200": one("The task, pending again."), ...errorResponses() },
      },
    },
    "/aps/2/console/calls": {
      get: {
        operationId: "streamEndpointCalls",
        summary:
          "The calls this controller (every worker of `serve --workers N`; not other nodes) makes to application endpoints, as server-sent events (provider administrators): the last 200 first, then each new one; credentials removed, encrypted values masked.",
        responses: {
          "200": {
            description: "One `data:` line of JSON per call.",
            content: { "text/event-stream": { schema: { type: "string" } } },
          },
          ...errorResponses(),
        },
      },
    },
    "/aps/2/events/pending": list(
      "listPendingNotifications",
      "Notifications not yet delivered (provider administrators), oldest first, at most 1000; Content-Range gives how many in all.",
    ),
    "/aps/2/events/dead": list(
      "listDeadLetters",
      "Notifications given up after their retries (provider administrators), oldest first, at most 1000; Content-Range gives how many in all.",
    ),
    "/aps/2/events/subscriptions": list(
      "listEverySubscription",
      "Every event subscription of every subscriber, with its subscriber and creation time (provider administrators), oldest first, at most 1000; Content-Range gives how many in all.",
    ),
    "/aps/2/events/dead/replay": {
      post: { operationId: "replayDeadLetters", responses: { "200": replayed, ...errorResponses() } },
    },
    "/aps/2/events/dead/{notificationId}/replay": {
      post: {
        operationId: "replayDeadLetter",
        parameters: [notification],
        responses: { "200": replayed, ...errorResponses() },
      },
    },
    "/aps/2/events/dead/{notificationId}": {
      delete: {
        operationId: "discardDeadLetter",
        summary: "Drops a dead notification for good.",
        parameters: [notification],
        responses: { "204": { description: "Dropped." }, ...errorResponses() },
      },
    },
    "/aps/2/customers/{accountId}/suspend": {
      post: suspension(
        "suspendCustomer",
        "Disables every Suspendable resource of the account and the accounts below it.",
      ),
    },
    "/aps/2/customers/{accountId}/resume": {
      post: suspension(
        "resumeCustomer",
        "Enables every Suspendable resource of the account and the accounts below it.",
      ),
    },
  };
}
