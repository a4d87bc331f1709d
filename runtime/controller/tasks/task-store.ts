/**
 * The durable task table of asynchronous operations (see schema.ts `tasks`). The body of the call
 * a task repeats is the whole request, encrypted properties included, so it is stored sealed
 * (AES-256-GCM with the task id as additional data, base64 in the text column) and cleared when
 * the task ends: neither the table, a dump of it nor the write-ahead log ever holds it in clear.
 */
import { randomUUID } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import type { PropertySealer } from "../support/encryption.ts";
import type { RepeatableCall } from "../forward/forwarder.ts";
import { rowsOf, type Db } from "../store/open-database.ts";
import { tasks } from "../store/schema.ts";

/** A task row. */
export type TaskRow = typeof tasks.$inferSelect;

/** How long a claimed task is reserved for the process that claimed it. */
const LEASE_SECONDS = 60;

/** How a sealed body starts; a body without it was written before bodies were sealed (JSON text). */
const SEALED_PREFIX = "sealed:v1:";

export class TaskStore {
  constructor(
    private readonly db: Db,
    private readonly sealer: PropertySealer,
  ) {}

  /** Schedules the repetition of an accepted call. Runs in the caller's transaction when given one. */
  async schedule(
    db: Db,
    task: {
      resourceId: string;
      operation: string;
      instanceId: string;
      call: RepeatableCall;
      info: string;
      retrySeconds: number;
    },
  ): Promise<string> {
    const id = randomUUID();
    const now = Date.now();
    await db.insert(tasks).values({
      id,
      resourceId: task.resourceId,
      operation: task.operation,
      instanceId: task.instanceId,
      method: task.call.method,
      path: task.call.path,
      body: task.call.body === undefined ? null : this.sealBody(id, task.call.body),
      transactionId: task.call.transactionId,
      identityId: task.call.identityId ?? null,
      info: task.info,
      attempts: 0,
      retryAt: new Date(now + task.retrySeconds * 1000).toISOString(),
      state: "pending",
      created: new Date(now).toISOString(),
    });
    return id;
  }

  /**
   * Claims one due task: the row is locked with SKIP LOCKED, so concurrent processes never take
   * the same one, and leased, so a process that dies leaves it to others when the lease ends.
   */
  async claimDue(): Promise<TaskRow | undefined> {
    const rows = await this.db.execute<Record<string, unknown>>(sql`
      update tasks set locked_until = now() + make_interval(secs => ${LEASE_SECONDS}), attempts = attempts + 1
      where id = (
        select id from tasks
        where state = 'pending' and retry_at <= now() and (locked_until is null or locked_until < now())
        order by retry_at limit 1 for update skip locked
      )
      returning id`);
    const id = rowsOf<{ id: string }>(rows)[0]?.id;
    if (!id) return undefined;
    const [row] = await this.db.select().from(tasks).where(eq(tasks.id, id));
    return row && { ...row, body: row.body === null ? null : this.openBody(row.id, row.body) };
  }

  async reschedule(id: string, info: string, retrySeconds: number): Promise<void> {
    await this.db
      .update(tasks)
      .set({ info, retryAt: new Date(Date.now() + retrySeconds * 1000).toISOString(), lockedUntil: null })
      .where(eq(tasks.id, id));
  }

  async finish(db: Db, id: string): Promise<void> {
    // The body is not needed once the operation ended.
    await db.update(tasks).set({ state: "done", lockedUntil: null, body: null }).where(eq(tasks.id, id));
  }

  async fail(id: string, error: string): Promise<void> {
    await this.db
      .update(tasks)
      .set({ state: "failed", lastError: error, lockedUntil: null, body: null })
      .where(eq(tasks.id, id));
  }

  async list(): Promise<TaskRow[]> {
    return this.db.select().from(tasks).orderBy(asc(tasks.created));
  }

  /** Removes a task that is no longer pending (failed or done). */
  async remove(id: string): Promise<"removed" | "pending" | "missing"> {
    const rows = await this.db
      .delete(tasks)
      .where(and(eq(tasks.id, id), sql`${tasks.state} <> 'pending'`))
      .returning({ id: tasks.id });
    if (rows.length > 0) return "removed";
    const left = await this.db.select({ id: tasks.id }).from(tasks).where(eq(tasks.id, id)).limit(1);
    return left.length > 0 ? "pending" : "missing";
  }

  /**
   * Puts a failed task back to pending, due now (a provider administrator's retry, e.g. once the
   * application is fixed): the runner takes it on its next pass and repeats the call as the first
   * attempts did, the resource as it is now being the body of a provisioning or configure
   * (task-attempt.ts). A pending or finished task is left as it is.
   */
  async retry(
    id: string,
  ): Promise<{ outcome: "retried"; task: TaskRow } | { outcome: "pending" | "done" | "missing" }> {
    const [row] = await this.db
      .update(tasks)
      .set({ state: "pending", retryAt: new Date().toISOString(), lockedUntil: null, lastError: null })
      .where(and(eq(tasks.id, id), eq(tasks.state, "failed")))
      .returning();
    if (row) return { outcome: "retried", task: row };
    const [left] = await this.db.select({ state: tasks.state }).from(tasks).where(eq(tasks.id, id)).limit(1);
    return { outcome: !left ? "missing" : left.state === "pending" ? "pending" : "done" };
  }

  /** Whether a resource has a pending task (a second operation must wait). */
  async pendingFor(resourceId: string): Promise<boolean> {
    const rows = await this.db
      .select({ id: tasks.id })
      .from(tasks)
      .where(and(eq(tasks.resourceId, resourceId), eq(tasks.state, "pending")))
      .limit(1);
    return rows.length > 0;
  }

  private sealBody(taskId: string, body: string): string {
    return SEALED_PREFIX + Buffer.from(this.sealer.sealText(`task:${taskId}`, body)).toString("base64");
  }

  private openBody(taskId: string, stored: string): string {
    return stored.startsWith(SEALED_PREFIX)
      ? this.sealer.openText(`task:${taskId}`, Buffer.from(stored.slice(SEALED_PREFIX.length), "base64"))
      : stored;
  }
}
